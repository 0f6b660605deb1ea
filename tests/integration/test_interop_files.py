"""Meeting agents where their memories are: MEMORY.md directories (exact round trip, all or
nothing), a claude-mem database read without a single byte changed, and plan hygiene that
never touches an active plan or a decoy."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from memvault import FixedClock, MemVault
from memvault.cli.main import app
from memvault.config import PlanSettings
from memvault.embed import HashingEmbedder
from memvault.errors import ConflictError, InvalidBatchError, InvalidInputError
from memvault.interop import plans

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def open_vault(path: Path) -> MemVault:
    return MemVault.open(path, embedder=HashingEmbedder(), clock=FixedClock(NOW))


def memory_file(name: str, kind: str, description: str, body: str) -> str:
    front = yaml.safe_dump(
        {"name": name, "description": description, "metadata": {"type": kind}}, sort_keys=False
    )
    return f"---\n{front}---\n{body}"


def valid_dir(root: Path) -> Path:
    d = root / "memories"
    d.mkdir()
    files = {
        "user_prefers-short-answers.md": memory_file(
            "prefers-short-answers",
            "user",
            "Maya wants short answers with code",
            "Maya prefers short answers with a code example.\n\n**Why:** she reads on her "
            "phone.\n**How to apply:** lead with the snippet. See [[billing-on-postgres]].\n",
        ),
        "project_billing-on-postgres.md": memory_file(
            "billing-on-postgres",
            "project",
            "Billing moved to Postgres 16 on 2026-02-03",
            "Billing runs on Postgres 16 since 2026-02-03; rollback plan in RB-12.\n"
            "Related: [[prefers-short-answers]] and [[on-call-rota]].\n",
        ),
        "feedback_no-emojis.md": memory_file(
            "no-emojis", "feedback", "No emojis in replies", "Do not use emojis. Said last week.\n"
        ),
    }
    for name, text in files.items():
        (d / name).write_text(text, encoding="utf-8")
    (d / "MEMORY.md").write_text(
        "- [Short answers](user_prefers-short-answers.md) — how Maya reads\n"
        "- [Billing on Postgres](project_billing-on-postgres.md) — the migration\n"
        "- [No emojis](feedback_no-emojis.md)\n",
        encoding="utf-8",
    )
    return d


def parsed(d: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"MEMORY.md": (d / "MEMORY.md").read_text(encoding="utf-8")}
    for p in sorted(d.glob("*.md")):
        if p.name != "MEMORY.md":
            text = p.read_text(encoding="utf-8")
            end = text.index("\n---\n", 4)
            out[p.name] = (yaml.safe_load(text[4:end]), text[end + 5 :])
    return out


def test_a_memory_directory_round_trips_exactly(tmp_path: Path) -> None:
    source = valid_dir(tmp_path)
    with open_vault(tmp_path / "v.db") as vault:
        done = vault.import_memory_dir(source)
        assert done["imported"] == 3 and done["links"] == 2
        assert done["unresolved_links"] == [
            {"file": "project_billing-on-postgres.md", "link": "on-call-rota"}
        ]  # a memory worth writing
        assert done["relative_dates"] == [
            {"file": "feedback_no-emojis.md", "line": 1, "text": "last week"}
        ]
        kinds = {e.type.value for e in vault.episodes(limit=10)}
        assert kinds == {"user", "project", "feedback"}
        assert {f.object for f in vault.facts(predicate="links_to")} == {
            "billing-on-postgres",
            "prefers-short-answers",
        }
        assert "Postgres" in vault.recall("billing Postgres rollback")[0].text
        again = vault.import_memory_dir(source)
        assert again["imported"] == 0 and again["unchanged"] == 3
        vault.export_memory_dir(tmp_path / "out")
    assert parsed(tmp_path / "out") == parsed(source)


def test_a_changed_file_is_reported_not_overwritten(tmp_path: Path) -> None:
    source = valid_dir(tmp_path)
    with open_vault(tmp_path / "v.db") as vault:
        vault.import_memory_dir(source)
        path = source / "feedback_no-emojis.md"
        path.write_text(path.read_text().replace("Do not", "Never"), encoding="utf-8")
        done = vault.import_memory_dir(source)
        assert done["changed_not_updated"] == ["feedback_no-emojis.md"]


def test_a_malformed_directory_imports_nothing_and_lists_every_problem(tmp_path: Path) -> None:
    d = valid_dir(tmp_path)
    (d / "user_plain.md").write_text("no frontmatter here\n", encoding="utf-8")
    (d / "project_twin.md").write_text(
        memory_file("no-emojis", "project", "a second no-emojis", "body\n"), encoding="utf-8"
    )
    (d / "reference_odd.md").write_text(
        memory_file("odd-type", "gossip", "unknown type", "body\n"), encoding="utf-8"
    )
    index = (d / "MEMORY.md").read_text()
    index += (
        "- [Ghost](project_ghost.md) — gone\n- [Plain](user_plain.md)\n- [Odd](reference_odd.md)\n"
    )
    (d / "MEMORY.md").write_text(index, encoding="utf-8")
    with open_vault(tmp_path / "v.db") as vault:
        with pytest.raises(InvalidBatchError) as caught:
            vault.import_memory_dir(d)
        where = {(p.where, p.message.split(" ")[0]) for p in caught.value.problems}
        assert ("MEMORY.md:4", "points") in where  # the index line pointing nowhere
        assert ("user_plain.md:1", "no") in where  # no frontmatter
        assert any(w == "project_twin.md:1" for w, _ in where)  # a duplicate name, not indexed
        assert any(
            p.where == "project_twin.md:1" and "also used" in p.message
            for p in caught.value.problems
        )
        assert any(
            p.where == "project_twin.md:1" and "missing from" in p.message
            for p in caught.value.problems
        )
        assert any(
            p.where == "reference_odd.md:1" and "gossip" in p.message for p in caught.value.problems
        )
        assert vault.stats()["episodes"] == 0  # nothing half-imported


CLAUDE_MEM_SCHEMA = """
CREATE TABLE sdk_sessions (id INTEGER PRIMARY KEY AUTOINCREMENT,
  content_session_id TEXT UNIQUE NOT NULL, memory_session_id TEXT UNIQUE,
  project TEXT NOT NULL, started_at TEXT NOT NULL, started_at_epoch INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'active');
CREATE TABLE observations (id INTEGER PRIMARY KEY AUTOINCREMENT,
  memory_session_id TEXT NOT NULL, project TEXT NOT NULL, text TEXT, type TEXT NOT NULL,
  title TEXT, subtitle TEXT, facts TEXT, narrative TEXT, concepts TEXT,
  created_at TEXT NOT NULL, created_at_epoch INTEGER NOT NULL);
CREATE TABLE session_summaries (id INTEGER PRIMARY KEY AUTOINCREMENT,
  memory_session_id TEXT NOT NULL, project TEXT NOT NULL, request TEXT, learned TEXT,
  created_at TEXT NOT NULL, created_at_epoch INTEGER NOT NULL);
"""


def add_observations(db: Path, rows: list[tuple[str, str, str, str, str, int]]) -> None:
    con = sqlite3.connect(db)
    con.executemany(
        "INSERT INTO observations (memory_session_id, project, type, title, narrative, facts,"
        " created_at, created_at_epoch) VALUES (?, ?, ?, ?, ?, ?, '', ?)",
        [
            (s, p, t, title, n, json.dumps(["fact one"]) if n else None, e)
            for s, p, t, title, n, e in rows
        ],
    )
    con.commit()
    con.close()


def claude_mem_db(root: Path) -> Path:
    db = root / "claude-mem.db"
    con = sqlite3.connect(db)
    con.executescript(CLAUDE_MEM_SCHEMA)
    con.close()
    ms = int(NOW.timestamp() * 1000)
    add_observations(
        db,
        [
            ("s1", "shop", "decision", "Use Postgres", "We chose Postgres for billing.", ms),
            ("s1", "shop", "discovery", "Slow query", "The orders query scans.", ms + 1000),
            ("s2", "blog", "bugfix", "Fixed RSS", "The feed had a bad date.", ms + 2000),
            ("s2", "blog", "change", "", "", ms + 3000),  # nothing to remember
        ],
    )
    return db


def fingerprint(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def test_claude_mem_is_read_without_changing_a_byte(tmp_path: Path) -> None:
    db = claude_mem_db(tmp_path)
    before = fingerprint(db)
    with open_vault(tmp_path / "v.db") as vault:
        first = vault.import_claude_mem(db)
        assert (first["read"], first["imported"], first["skipped_empty"]) == (4, 3, 1)
        assert fingerprint(db) == before
        episodes = {e.external_id: e for e in vault.episodes(limit=10)}
        postgres = next(e for e in episodes.values() if "Postgres" in e.content)
        assert postgres.type.value == "project" and postgres.session_id == "s1"
        assert postgres.occurred_at == NOW and "- fact one" in postgres.content
        assert postgres.metadata["claude_mem"]["type"] == "decision"
        assert vault.import_claude_mem(db)["read"] == 0  # the watermark: nothing new
        assert fingerprint(db) == before
        with pytest.raises(InvalidInputError):
            vault.import_claude_mem(tmp_path / "v.db")  # not a claude-mem database
        add_observations(db, [("s3", "shop", "feature", "Checkout", "New checkout.", 1)])
        after_add = fingerprint(db)
        second = vault.import_claude_mem(db)
        assert (second["read"], second["imported"]) == (1, 1)  # only what is new
        assert fingerprint(db) == after_add
        shop = vault.import_claude_mem(db, project="shop", namespace="shop-only")
        assert shop["imported"] == 3


def test_a_failed_claude_mem_import_leaves_the_source_as_it_was(tmp_path: Path) -> None:
    broken = tmp_path / "old.db"
    con = sqlite3.connect(broken)
    con.execute("CREATE TABLE observations (id INTEGER PRIMARY KEY, text TEXT)")
    con.commit()
    con.close()
    before = fingerprint(broken)
    with open_vault(tmp_path / "v.db") as vault:
        with pytest.raises(InvalidInputError, match="memory_session_id"):
            vault.import_claude_mem(broken)
        assert vault.stats()["episodes"] == 0
    assert fingerprint(broken) == before


def plan_dir(root: Path) -> Path:
    d = root / "plans"
    d.mkdir()
    old, older = (NOW - timedelta(days=10)).timestamp(), (NOW - timedelta(days=30)).timestamp()
    files = {
        "today.md": ("# Ship search\n- [ ] index\n", NOW.timestamp()),
        "current-sprint.md": ("# Sprint\nCOMPLETED\n", older),  # named as current
        "auth.md": ("# Auth rework -- Done\n\nsteps...\n" + "x" * 3000, older),
        "auth-agent-tests.md": ("# tests for auth\n- [ ] write them\n", older),
        "cache.md": ("# Cache\nsome notes\n\nNo further planning\n", old),
        "decoy-checklist.md": (
            "# Migration\n- [x] Done step one\n- [ ] step two\n" + "y" * 3000,
            old,
        ),
        "decoy-heading.md": ("# Release\n## Complete the rollout\nmore\n" + "z" * 3000, old),
        "decoy-negated.md": ("# Design\n" + "w" * 3000 + "\nDesign not finalized\n", old),
        "stub.md": ("# idea\n", old),
        "big-old.md": ("# Big\n" + "q" * 5000 + "\n", older),
    }
    for name, (text, mtime) in files.items():
        (d / name).write_text(text, encoding="utf-8")
        os.utime(d / name, (mtime, mtime))
    return d


def test_plan_hygiene_classifies_moves_never_deletes_and_restores(tmp_path: Path) -> None:
    d = plan_dir(tmp_path)
    s = PlanSettings()
    dry = plans.scan(d, NOW, s)
    classes = {p.name: (p.cls, p.action) for p in dry}
    assert classes == {
        "today.md": ("active", "none"),
        "current-sprint.md": ("active", "none"),
        "auth.md": ("completed", "archive"),
        "auth-agent-tests.md": ("completed", "archive"),
        "cache.md": ("completed", "archive"),
        "decoy-checklist.md": ("recent", "none"),
        "decoy-heading.md": ("recent", "none"),
        "decoy-negated.md": ("recent", "none"),
        "stub.md": ("stale", "trash"),
        "big-old.md": ("dormant", "report"),
    }
    before = {p.name: p.read_bytes() for p in d.glob("*.md")}
    plans.apply(d, NOW, s, expected=dry)
    left = {p.name for p in d.glob("*.md")}
    assert left == {"today.md", "current-sprint.md", "decoy-checklist.md", "decoy-heading.md",
                    "decoy-negated.md", "big-old.md"}  # fmt: skip
    assert all((d / n).read_bytes() == before[n] for n in left)  # untouched
    assert (d / ".archive" / "auth-agent-tests.md").exists()  # went with its parent
    record = json.loads((d / ".archive" / "ARCHIVE.jsonl").read_text().splitlines()[0])
    assert record["file"] == "auth.md" and record["sub_plans"] == ["auth-agent-tests.md"]
    assert (d / ".trash" / "stub.md").read_bytes() == before["stub.md"]  # moved, not deleted
    assert plans.restore(d, "stub.md") == ["stub.md"]
    assert (d / "stub.md").read_bytes() == before["stub.md"]


def test_apply_refuses_when_the_plans_changed_since_the_dry_run(tmp_path: Path) -> None:
    d = plan_dir(tmp_path)
    dry = plans.scan(d, NOW, PlanSettings())
    (d / "stub.md").write_text("# idea, now today\n", encoding="utf-8")  # modified today
    os.utime(d / "stub.md", (NOW.timestamp(), NOW.timestamp()))
    with pytest.raises(ConflictError):
        plans.apply(d, NOW, PlanSettings(), expected=dry)
    assert (d / "stub.md").exists() and not (d / ".trash").exists()


def test_the_commands(tmp_path: Path) -> None:
    source = valid_dir(tmp_path)
    db = claude_mem_db(tmp_path)
    env = {"MEMVAULT_DB_PATH": str(tmp_path / "v.db"), "MEMVAULT_EMBEDDER": "hashing"}

    def run(*args: str) -> Any:
        return CliRunner().invoke(app, list(args), env=env)

    done = run("import", "memory-dir", str(source), "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["imported"] == 3
    assert json.loads(run("import", "claude-mem", str(db), "--json").stdout)["imported"] == 3
    out = run("export", "memory-dir", str(tmp_path / "out"), "--json")
    assert json.loads(out.stdout)["files"] == 6  # three files, three claude-mem project/reference
    assert run("import", "nonsense", "x").exit_code == 2
    assert run("import", "memory-dir").exit_code == 2
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "user_x.md").write_text("nothing\n")
    refused = run("import", "memory-dir", str(bad))
    assert refused.exit_code == 2 and "user_x.md:1" in refused.output
    listing = json.loads(run("plans", str(plan_dir(tmp_path)), "--json").stdout)
    assert listing["applied"] is False and listing["counts"]["completed"] == 3


def test_the_dream_syncs_configured_directories_as_proposals(tmp_path: Path) -> None:
    source = valid_dir(tmp_path)
    sync = {"memory_dirs": {"default": [str(source)]}}
    with MemVault.open(
        tmp_path / "v.db", embedder=HashingEmbedder(), clock=FixedClock(NOW), sync=sync
    ) as vault:
        before = fingerprint_dir(source)
        skipped = vault.dream(apply=True, force=True, skip_files=True)
        assert skipped.report["stages"]["files"] == {"skipped": "--skip-files"}
        first = vault.dream(apply=True, force=True)
        assert first.report["stages"]["files"]["new"] == 3
        assert first.report["counts"]["files.new"] == 3
        assert {e.type.value for e in vault.episodes(limit=10)} == {"user", "project", "feedback"}
        (source / "feedback_no-emojis.md").write_text(
            memory_file("no-emojis", "feedback", "No emojis", "Never use emojis.\n")
        )
        (source / "project_billing-on-postgres.md").unlink()
        second = vault.dream(apply=True, force=True)
        files = second.report["stages"]["files"]
        assert (files["new"], files["changed"], files["retired"]) == (0, 1, 1)
        live = {e.content for e in vault.episodes(limit=10) if e.expired_at is None}
        assert "Never use emojis." in live and not any("Postgres" in c for c in live)
        vault.undo_dream(second.run_id or "")
        assert any(
            "Postgres" in e.content and e.expired_at is None for e in vault.episodes(limit=10)
        )
        third = vault.dream(apply=True, force=True)  # the disk still says deleted: proposed again
        assert third.report["stages"]["files"]["retired"] == 1
    after = fingerprint_dir(source)
    assert set(after) == set(before) - {"project_billing-on-postgres.md"}  # the vault wrote nothing


def fingerprint_dir(d: Path) -> dict[str, tuple[str, int]]:
    return {p.name: fingerprint(p) for p in d.iterdir() if p.is_file()}


def test_claude_mem_rows_with_unreadable_times_are_skipped_counted_and_the_rest_imported(
    tmp_path: Path,
) -> None:
    """An epoch of 1e17 and an ISO date that is no date are skipped and listed; the good rows
    land, and a second import finds nothing left to do (no retry that never completes)."""
    db = claude_mem_db(tmp_path)
    ms = int(NOW.timestamp() * 1000)
    add_observations(
        db,
        [
            ("s3", "shop", "decision", "Far future", "Epoch far past any date.", 10**17),
            ("s3", "shop", "decision", "Epoch one", "1970 is a readable time.", 1),
            ("s3", "shop", "decision", "Good", "Cache invalidation on deploy.", ms + 5000),
        ],
    )
    con = sqlite3.connect(db)
    con.execute(
        "INSERT INTO observations (memory_session_id, project, type, title, narrative, "
        "created_at, created_at_epoch) VALUES ('s3', 'shop', 'change', 'Bad iso', 'x', "
        "'2024-13-45', 0)"
    )
    con.commit()
    con.close()
    with open_vault(tmp_path / "v.db") as vault:
        first = vault.import_claude_mem(db)
        assert first["imported"] == 5 and first["skipped_empty"] == 1
        assert first["skipped_bad_time"] == 2, first["problems"]
        assert {p["where"] for p in first["problems"]} == {"observation 5", "observation 8"}
        assert any("Cache invalidation" in e.content for e in vault.episodes(limit=20))
        again = vault.import_claude_mem(db)
        assert again["read"] == 0 and again["imported"] == 0
