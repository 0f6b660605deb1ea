"""A forget sticks (the peers' common complaint: deletes that come back): the history an
erased memory came from still exists outside the vault, and replaying it — the same ingest
again, a transcript a hook sends again, an older dump restored, a memory file still on disk —
never writes the memory back. The same words in another session are a new memory; the keys
kept are ids and hashes, never the text. And a dump restored into a vault that since
ingested the same turns keeps those turns once, with a count instead of a database error."""

from __future__ import annotations

import io
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault import FixedClock, MemVault
from memvault.cli.main import app
from memvault.embed import HashingEmbedder
from memvault.errors import ConflictError
from memvault.kg import forgotten
from tests.integration.test_interop_files import valid_dir

T = datetime(2026, 5, 1, 9, tzinfo=UTC)
PIN = "My bank PIN is 4417."
HISTORY = [
    {"content": PIN, "speaker": "Lea", "session_id": "a", "external_id": "t1"},
    {"content": "I like hiking in the Serra da Estrela.", "speaker": "Lea", "session_id": "a",
     "external_id": "t2"},
    {"content": PIN, "speaker": "Lea", "session_id": "b"},  # no external id: by its words
]  # fmt: skip


def _open(path: Path, **kw: object) -> MemVault:
    return MemVault.open(path, embedder=HashingEmbedder(), clock=FixedClock(T), **kw)


def _pins(vault: MemVault) -> int:
    return sum(PIN in e.content for e in vault.episodes(limit=100))


def test_replays_of_a_forgotten_history_never_write_it_back(tmp_path: Path) -> None:
    with _open(tmp_path / "v.db") as v:
        v.write_many(HISTORY)
        dump = io.StringIO()
        v.export(dump)  # a backup of before the forget
        erased = [e.id for e in v.episodes(limit=100) if PIN in e.content]
        v.forget(erased)
        assert _pins(v) == 0
        again = v.write_many(HISTORY)  # the same ingest run again
        assert again.forgotten == 2 and again.created == 0 and again.duplicates == 1
        with pytest.raises(ConflictError, match="forgotten"):
            v.write(PIN, speaker="Lea", session_id="b")  # a hook sending the turn again
        dump.seek(0)
        restored = v.import_(dump)  # the old backup restored
        assert restored.forgotten == 2 and _pins(v) == 0
        assert all(PIN not in h.text for h in v.recall("bank PIN", k=5))
        hiking = next(e for e in v.episodes(limit=100) if "hiking" in e.content)
        with pytest.raises(ConflictError, match="forgotten"):  # nor as a correction
            v.correct(hiking.id, PIN)
        said_anew = v.write(PIN, speaker="Lea", session_id="c")  # another session: new memory
        assert _pins(v) == 1 and said_anew.content == PIN
    raw = sqlite3.connect(tmp_path / "v.db").execute("select body from docs").fetchall()
    assert not any("4417" in str(row) for row in raw)  # the keys hold no text


def test_the_cli_ingest_and_import_report_what_stayed_forgotten(tmp_path: Path) -> None:
    env = {"MEMVAULT_EMBEDDER": "hashing", "MEMVAULT_DATA_DIR": ""}
    db = str(tmp_path / "c.db")
    src = tmp_path / "h.jsonl"
    src.write_text("".join(json.dumps(h) + "\n" for h in HISTORY), encoding="utf-8")
    cli = CliRunner()
    assert cli.invoke(app, ["--db", db, "ingest", str(src)], env=env).exit_code == 0
    with _open(tmp_path / "c.db") as v:
        pins = [e.id for e in v.episodes(limit=100) if PIN in e.content]
    assert cli.invoke(app, ["--db", db, "forget", *pins, "--apply"], env=env).exit_code == 0
    out = cli.invoke(app, ["--db", db, "ingest", str(src), "--json"], env=env)
    assert out.exit_code == 0 and json.loads(out.stdout)["forgotten"] == 2
    shown = cli.invoke(app, ["--db", db, "ingest", str(src)], env=env)
    assert "2 memories were forgotten before" in " ".join(shown.output.split())


def test_a_memory_file_still_on_disk_stays_forgotten_until_its_text_changes(
    tmp_path: Path,
) -> None:
    source = valid_dir(tmp_path)
    sync = {"memory_dirs": {"default": [str(source)]}}
    with _open(tmp_path / "v.db", sync=sync) as v:
        v.dream(apply=True, force=True)
        first = {e.id: e.content for e in v.episodes(limit=100)}
        postgres = next(i for i, text in first.items() if "Postgres" in text)
        v.forget([postgres])
        run = v.dream(apply=True, force=True, now=T + timedelta(days=1))
        assert run.report["stages"]["files"]["forgotten"] == 1
        assert all("Postgres" not in e.content for e in v.episodes(limit=100))
        path = next(source.glob("*postgres*.md"))
        path.write_text(path.read_text() + "\nMoved to Postgres 16 in May.\n", encoding="utf-8")
        run = v.dream(apply=True, force=True, now=T + timedelta(days=2))
        assert run.report["stages"]["files"]["new"] == 1  # said anew: a memory again


def test_a_dump_restored_over_the_same_turns_keeps_them_once(tmp_path: Path) -> None:
    with _open(tmp_path / "a.db") as a:
        a.write_many(HISTORY[:2])
        dump = io.StringIO()
        a.export(dump)
    with _open(tmp_path / "b.db") as b:
        b.write_many(HISTORY[:2])  # the same turns ingested here: other episode ids
        before = {e.external_id: e.id for e in b.episodes(limit=100)}
        dump.seek(0)
        summary = b.import_(dump)
        assert summary.already_here == 2
        after = {e.external_id: e.id for e in b.episodes(limit=100)}
        assert after == before
        assert all(
            set(f.source_episode_ids) <= set(after.values()) for f in b.facts(include_history=True)
        )


def test_the_keys_are_ids_and_hashes() -> None:
    from memvault.kg.model import Episode, content_hash

    e = Episode(namespace="n", content=PIN, occurred_at=T, created_at=T,
                content_hash=content_hash("n", "a", "Lea", PIN), session_id="a",
                speaker="Lea")  # fmt: skip
    keys = forgotten.ForgottenKeys(hashes=frozenset({e.content_hash}))
    assert keys.matches(e)
    other = e.model_copy(update={"content_hash": content_hash("n", "b", "Lea", PIN)})
    assert not keys.matches(other)
