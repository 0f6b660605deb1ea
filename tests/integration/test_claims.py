"""Claimed vs actual (issue 15, item 6): the lint's claims level compares current attitudes
with the last 30 days of mentions and questions (the diary's snapshots) and reports
mismatches as findings, never as changes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder

NOW = datetime(2026, 3, 10, 21, tzinfo=UTC)


def test_a_silent_preference_and_a_mentioned_avoidance_are_findings_not_changes(
    tmp_path: Path,
) -> None:
    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder(), clock=FixedClock(NOW)) as v:
        start = NOW - timedelta(days=90)
        v.upsert_attitude("tech_choice", "I prefer Postgres", topic="postgres", now=start)
        v.upsert_attitude("tech_choice", "I avoid Java", topic="java", polarity=-1, now=start)
        v.upsert_attitude("tooling", "I like Neovim", topic="neovim", now=start)
        v.write("Postgres tuning notes from the old project.", now=start)  # outside 30 days
        for day in range(1, 8):  # the last week: Java, every day; Neovim once
            v.write(
                f"Debugging the Java service again, day {day}.", now=NOW - day * timedelta(days=1)
            )
        v.write("Set up Neovim with the new config.", now=NOW - timedelta(days=2))
        v.write_diary(now=NOW - timedelta(days=1))  # some days from snapshots, some computed
        mark = v.store.watermark("default")

        report = v.lint(levels=["claims"])
        found = {(f.code, f.evidence["topic"]) for f in report.findings}
        assert found == {("claimed_not_mentioned", "postgres"), ("avoided_but_mentioned", "java")}
        java = next(f for f in report.findings if f.evidence["topic"] == "java")
        assert java.evidence["mentions"] == 7 and "7 times" in java.message
        assert all(f.fix == [] and f.severity == "info" for f in report.findings)
        assert v.store.watermark("default") == mark  # nothing written

        # the preference comes back into view once it is mentioned again
        v.write("Migrated the queue to Postgres.", now=NOW)
        codes = {f.evidence["topic"] for f in v.lint(levels=["claims"]).findings}
        assert "postgres" not in codes


def test_a_quiet_namespace_reports_no_silent_preference(tmp_path: Path) -> None:
    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder(), clock=FixedClock(NOW)) as v:
        v.upsert_attitude("tech_choice", "I prefer Postgres", topic="postgres")
        v.write("Hello.", now=NOW)
        assert v.lint(levels=["claims"]).findings == []
