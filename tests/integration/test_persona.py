"""The persona layers: attitudes keep their versions (a restatement corroborates, a change
supersedes, time fades), skills rise with use and fall with time, the dream's proposals wait
for review and undo, and bad input changes nothing."""

from __future__ import annotations

import io
import json
import math
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memvault import FixedClock, MemVault
from memvault.bootstrap import load_settings
from memvault.cli.main import app
from memvault.devservers import LocalRedis
from memvault.embed import HashingEmbedder
from memvault.errors import InvalidInputError, NotFoundError

T0 = datetime(2026, 1, 5, 9, tzinfo=UTC)


def open_vault(path: Path, now: datetime = T0, **kw: Any) -> MemVault:
    return MemVault.open(path, embedder=HashingEmbedder(), clock=FixedClock(now), **kw)


def days(n: float) -> datetime:
    return T0 + timedelta(days=n)


def statements(rows: list[dict[str, Any]]) -> list[str]:
    return sorted(r["statement"] for r in rows)


def test_the_write_path_reads_preferences_and_skill_uses_from_the_person(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db") as vault:
        vault.write("I prefer short answers in chat, full detail in reports.", speaker="Maya")
        vault.write("Please don't use emojis.", speaker="Maya")
        vault.write("I always prefer tabs over spaces.", speaker="assistant")  # not the person
        vault.write("I've been using Rust for years and I taught Python to my team.")
        current = vault.attitudes()
        assert statements(current) == [
            "don't use emojis",
            "prefer full detail (in reports)",
            "prefer short answers (in chat)",
        ]
        assert {r["context"] for r in current} == {None, "in chat", "in reports"}
        assert next(r for r in current if "emojis" in r["statement"])["polarity"] == -1
        assert {s["name"]: s["level"] for s in vault.skills()} == {"Python": "L1", "Rust": "L1"}
        rust = next(s for s in vault.skills() if s["name"] == "Rust")
        assert "do ×1" in rust["why"] and len(rust["evidence"]) == 1


def test_a_shared_chat_export_s_assistant_is_not_the_person(tmp_path: Path) -> None:
    """A ShareGPT export's sides are "human" and "gpt", a Gemini one's "user" and "model": the
    assistant's "I prefer" is not the person's attitude."""
    with open_vault(tmp_path / "v.db") as vault:
        vault.write("I prefer answers with examples.", speaker="human")
        vault.write("I always prefer tabs over spaces.", speaker="gpt")
        vault.write("I prefer dark mode in every tool.", speaker="model")
        assert statements(vault.attitudes()) == ["prefer answers with examples"]


def test_a_restatement_corroborates_and_a_change_makes_a_version(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db") as vault:
        first = vault.write("I prefer short answers in chat.", speaker="Maya", now=days(0))
        again = vault.write("I prefer short answers in chat!", speaker="Maya", now=days(10))
        (one,) = vault.attitudes(as_of=days(11))
        assert one["confidence"] > 0.6 and [e["episode_id"] for e in one["evidence"]] == [
            first.id,
            again.id,
        ]
        vault.write("I prefer detailed answers in chat.", speaker="Maya", now=days(40))
        (now,) = vault.attitudes(as_of=days(41))
        assert now["statement"] == "prefer detailed answers (in chat)" and now["version"] == 2
        history = vault.attitudes(as_of=days(41), history=True)
        old = next(r for r in history if r["version"] == 1)
        assert old["status"] == "superseded" and old["superseded_by"] == now["id"]
        assert old["superseded_at"].startswith(days(40).date().isoformat())
        (then,) = vault.attitudes(as_of=days(20))  # as of then: the old version, current
        assert then["statement"] == "prefer short answers (in chat)"


def test_an_uncorroborated_attitude_fades_without_being_deleted(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db", persona={"decay_per_day": {"pace": 0.01}}) as vault:
        vault.upsert_attitude("pace", "small steps, shipped daily", now=days(0))
        assert len(vault.attitudes(as_of=days(30))) == 1  # 0.6 × e^-0.3 ≈ 0.44
        assert vault.attitudes(as_of=days(100)) == []  # 0.6 × e^-1 ≈ 0.22 < 0.25
        (kept,) = vault.attitudes(as_of=days(100), history=True)
        assert kept["status"] == "faded" and math.isclose(
            kept["confidence_now"], 0.6 * math.exp(-1), rel_tol=1e-3
        )


def test_contexts_coexist_instead_of_superseding(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db") as vault:
        vault.upsert_attitude("writing_style", "short answers", context="in chat")
        vault.upsert_attitude("writing_style", "full detail answers", context="in reports")
        assert len(vault.attitudes()) == 2


def test_a_skill_rises_with_use_and_falls_with_time(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db") as vault:
        e = vault.write("pairing on the Rust parser", now=days(0))
        levels = []
        for week in range(8):
            vault.record_skill_use("Rust", kind="do", now=days(7 * week))
            levels.append(vault.skills(as_of=days(7 * week))[0]["level"])
        assert levels[0] == "L1" and "L2" in levels
        vault.record_skill_use("Rust", kind="teach", evidence=e.id, now=days(50))
        vault.record_skill_use("rust", kind="build", evidence=e.id, now=days(51))  # same skill
        assert vault.skills(as_of=days(52))[0]["level"] == "L3"
        assert vault.skills(as_of=days(52), min_level="L3")[0]["name"] == "Rust"
        faded = vault.skills(as_of=days(52 + 365))[0]
        assert faded["level"] == "L1" and "last used 366 days ago" in faded["why"]
        again = vault.record_skill_use("Rust", kind="teach", evidence=e.id, now=days(60))
        assert again["counted"] is False  # one episode counts once per kind


def test_every_dream_proposed_persona_change_waits_for_review_and_undoes(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db", persona={"on_write": False}) as vault:
        vault.write("I prefer short answers in chat.", speaker="Maya")
        vault.write("I've been using Kubernetes for two years.", speaker="Maya")
        assert vault.attitudes() == [] and vault.skills() == []
        result = vault.dream(apply=True, force=True)
        persona = result.report["stages"]["persona"]
        assert persona["attitude_created"] == 1 and persona["skill_uses"] == 1
        assert vault.attitudes() == []  # nothing applied on its own
        items = vault.review_items()
        assert len(items) == 2 and all(
            any(r["code"] == "sensitive" for r in i["reasons"]) for i in items
        )
        for item in items:
            vault.approve(item["id"])
        assert statements(vault.attitudes()) == ["prefer short answers (in chat)"]
        assert [s["name"] for s in vault.skills()] == ["Kubernetes"]
        vault.undo_dream(result.run_id or "")
        assert vault.attitudes() == [] and vault.skills() == []
        again = vault.dream(apply=True, force=True)  # nothing new was written since
        assert again.report["stages"]["persona"]["episodes_read"] == 0


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda v: v.upsert_attitude("vibes", "chill"), "category"),
        (lambda v: v.upsert_attitude("pace", "fast", confidence=1.5), "confidence"),
        (lambda v: v.upsert_attitude("pace", "fast", confidence=float("nan")), "confidence"),
        (lambda v: v.upsert_attitude("pace", "  \u200b "), "statement"),
        (lambda v: v.upsert_attitude("pace", "fast", polarity=0), "polarity"),
        (lambda v: v.skills(min_level="L4"), "level"),
        (lambda v: v.record_skill_use("Rust", kind="dream"), "kind"),
        (lambda v: v.record_skill_use("  "), "skill"),
        (lambda v: v.attitudes(category="vibes"), "category"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(tmp_path: Path, call: Any, field: str) -> None:
    with open_vault(tmp_path / "v.db") as vault:
        vault.upsert_attitude("pace", "small steps")
        before = (vault.attitudes(history=True), vault.skills())
        with pytest.raises(InvalidInputError) as caught:
            call(vault)
        assert caught.value.field == field
        assert (vault.attitudes(history=True), vault.skills()) == before


def test_evidence_must_exist(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db") as vault, pytest.raises(NotFoundError):
        vault.record_skill_use("Rust", evidence="no-such-episode")


def test_recall_and_the_primer_carry_current_attitudes(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db") as vault:
        vault.write("I prefer short answers in chat.", speaker="Maya")
        vault.write("The billing service moved to Postgres.", speaker="Maya")
        plain = vault.recall("how long should my chat answers be?")
        assert all(h.kind != "persona" for h in plain)
        hits = vault.recall("how long should my chat answers be?", persona=True)
        persona = [h for h in hits if h.kind == "persona"]
        assert persona and persona[0].text == "prefer short answers (in chat)"
        assert "current attitude" in persona[0].explanation.text()
        assert "prefer short answers (in chat) [writing_style]" in vault.primer().text


def test_the_persona_layers_travel_in_the_dump(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db", days(10)) as vault:
        vault.write("I prefer short answers in chat.", speaker="Maya", now=days(0))
        vault.write("I prefer detailed answers in chat.", speaker="Maya", now=days(5))
        vault.record_skill_use("Rust", kind="teach", now=days(6))
        out = io.StringIO()
        vault.export(out)
        history = vault.attitudes(history=True)
    lines = [json.loads(x) for x in out.getvalue().splitlines()[1:]]
    assert sum(x["type"] == "attitude" for x in lines) == 2
    with open_vault(tmp_path / "copy.db", days(10)) as copy:
        copy.import_(io.StringIO(out.getvalue()))
        assert copy.attitudes(history=True) == history
        copy.import_(io.StringIO(out.getvalue()), namespace="elsewhere")
        moved = copy.attitudes(namespace="elsewhere", history=True)
        assert statements(moved) == statements(history)
        assert {r["id"] for r in moved}.isdisjoint({r["id"] for r in history})
        assert copy.skills(namespace="elsewhere")[0]["name"] == "Rust"


def test_the_persona_command(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with open_vault(path, datetime.now(UTC)) as vault:  # the command runs on the real clock
        e = vault.write("I prefer short answers in chat.", speaker="Maya")
    env = {"MEMVAULT_DB_PATH": str(path), "MEMVAULT_EMBEDDER": "hashing"}

    def run(*args: str) -> Any:
        return CliRunner().invoke(app, ["persona", *args], env=env)

    rows = json.loads(run("attitudes", "--json").stdout)
    assert [r["statement"] for r in rows] == ["prefer short answers (in chat)"]
    used = json.loads(
        run("skill-use", "Rust", "--evidence", e.id, "--kind", "build", "--json").stdout
    )
    assert used["counted"] and used["evidence"] == [e.id]
    assert json.loads(run("skills", "--json").stdout)[0]["name"] == "Rust"
    assert run("history", "--as-of", "2020-01-01", "--json").stdout.strip() == "[]"
    bad = run("attitudes", "-c", "vibes")
    assert bad.exit_code == 2 and "writing_style" in bad.output
    missing = run("skill-use", "Rust", "--evidence", "nope")
    assert missing.exit_code != 0 and "nope" in missing.output


def test_the_persona_layers_on_falkordb(tmp_path: Path, redis_server: LocalRedis) -> None:
    settings = load_settings(
        db_path=tmp_path / "coord.db",
        store="falkordb",
        graph_url=redis_server.url,
        graph_name="persona_" + tmp_path.name[-12:].replace("-", "_"),
    )
    clock = FixedClock(days(10))
    with MemVault.open(settings=settings, embedder=HashingEmbedder(), clock=clock) as v:
        v.write("I prefer short answers in chat.", speaker="Maya", now=days(0))
        v.write("I prefer detailed answers in chat.", speaker="Maya", now=days(5))
        v.record_skill_use("Rust", kind="teach", now=days(6))
        assert [r["version"] for r in v.attitudes()] == [2]
        assert [r["status"] for r in v.attitudes(history=True)] == ["current", "superseded"]
        assert v.skills()[0]["name"] == "Rust"
        assert v.attitudes(namespace="other") == []  # scoped to its namespace
