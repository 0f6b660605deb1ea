"""What tiering leaves in the file: the keyword index merged after a run that rewrote texts,
a tier move journaled once (the record before whole, what changed after it, the dropped words
as a hash) and still undone, and ``memvault compact`` giving the file back its free pages
without changing anything stored."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault.changes.docs import JOURNAL, after_of
from memvault.cli.main import app
from memvault.errors import ConflictError
from tests.integration.test_tiers import LATER, LONG, T0, open_vault, write_history


def _keyword_index_bytes(path: Path, merge: bool = False) -> int:
    con = sqlite3.connect(path)
    try:
        if merge:
            con.execute("INSERT INTO episodes_fts(episodes_fts) VALUES ('optimize')")
            con.commit()
        return int(con.execute("SELECT sum(length(block)) FROM episodes_fts_data").fetchone()[0])
    finally:
        con.close()


def test_a_dream_that_rewrote_texts_leaves_the_keyword_index_merged(tmp_path: Path) -> None:
    """Digests replace texts; FTS5 would keep the replaced terms in old segments (the index
    larger than its live rows need: 64% after six simulated months) until a merge the applied
    run now does."""
    path = tmp_path / "v.db"
    with open_vault(path, T0) as vault:
        for n in range(40):
            vault.write(LONG.replace("RB-12", f"RB-{n}"), speaker="Maya", session_id=f"s{n}")
    with open_vault(path, LATER) as vault:
        assert vault.tiers(apply=True)["next"]["digests"] == 40
        found = vault.store.keyword_topk("default", "episode", ["flowerpot"], 50)
        assert len(found) == 40  # the dropped words still found, through the cues
    after_run = _keyword_index_bytes(path)
    assert after_run == _keyword_index_bytes(path, merge=True)  # nothing left to merge


def test_compact_gives_the_file_back_the_room_and_changes_nothing_stored(tmp_path: Path) -> None:
    """Erased and rewritten rows leave free pages in the file; ``memvault compact`` gives
    them back (VACUUM) and every memory reads as before."""
    path = tmp_path / "v.db"
    with open_vault(path, T0) as vault:
        ids = [vault.write(LONG.replace("RB-12", f"RB-{n}")).id for n in range(120)]
        vault.forget(ids[::2])  # half erased for good: their pages are free, not gone
        kept = {i: vault.get_episode(i).content for i in ids[1::2]}
    env = {"MEMVAULT_DB_PATH": str(path), "MEMVAULT_EMBEDDER": "hashing"}
    out = CliRunner().invoke(app, ["compact", "--json"], env=env)
    assert out.exit_code == 0, out.output
    done = json.loads(out.stdout)
    assert done["compacted"] and done["bytes_after"] < done["bytes_before"]
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA freelist_count").fetchone()[0] == 0
    con.close()
    with open_vault(path, T0) as vault:
        assert {i: vault.get_episode(i).content for i in kept} == kept
        assert vault.recall("runbook RB-7 rollback", k=1)[0].id == ids[7]
    words = CliRunner().invoke(app, ["compact"], env=env)
    assert words.exit_code == 0 and "given back" in words.output
    missing = CliRunner().invoke(
        app, ["compact"], env={**env, "MEMVAULT_DB_PATH": str(tmp_path / "x.db")}
    )
    assert missing.exit_code != 0 and "no vault at" in missing.output


def test_a_tier_move_s_journal_holds_the_dropped_words_once_and_still_undoes(
    tmp_path: Path,
) -> None:
    """The entry keeps the record before whole and after as the fields that changed; the
    digest's cues (every dropped word, as long as the original ``before`` holds) as their
    hash. Undo still tells a record as the run left it (no force needed) from one changed
    since (refused without force)."""
    path = tmp_path / "v.db"
    ids = write_history(path)
    with open_vault(path, LATER) as vault:
        done = vault.tiers(apply=True)
        entries = [
            e
            for d in vault.store.list_docs("default", JOURNAL, limit=100)
            for e in d.body["entries"]
            if e["id"] == ids["long"]
        ]
        changed = entries[0]["after_changes"]  # the fields the move changed, no copy of the rest
        assert "speaker" not in changed and changed["tier"] == "cold"
        digest = after_of(entries[0])["metadata"]["digest"]
        assert "cues" not in digest and len(digest["cues_sha256"]) == 64
        live = vault.get_episode(ids["long"]).metadata["digest"]
        assert "flowerpot" in live["cues"].split()  # the record keeps its cues whole
        assert json.dumps(entries).count("flowerpot") == 1  # the journal: in ``before`` only
        vault.undo_dream(done["run_id"])  # untouched since: no force needed
        assert vault.get_episode(ids["long"]).content == LONG
        again = vault.tiers(apply=True)
        vault.record_access([ids["long"]])  # changed since the run: warmer
        with pytest.raises(ConflictError):
            vault.undo_dream(again["run_id"])
        vault.undo_dream(again["run_id"], force=True)
        assert vault.get_episode(ids["long"]).content == LONG
