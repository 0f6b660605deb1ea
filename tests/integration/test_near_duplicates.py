"""Near-duplicate episodes merged by the dream: the survivor speaks for every turn it
absorbed, through chains of merges too (A absorbed by B, B later by C: C speaks for both),
and recall names all of them as its sources."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memvault import MemVault
from memvault.kg.model import Episode

START = datetime(2025, 3, 3, 19, tzinfo=UTC)


def test_the_survivor_of_a_chain_of_merges_speaks_for_every_turn(vault: MemVault) -> None:
    # the same words on three evenings; each later one more important, so each merge keeps
    # the newer record and retires the survivor of the one before
    for day, importance in [(0, 0.2), (7, 0.5), (14, 0.9)]:
        vault.write_many(
            [{"content": "I went to salsa class again this evening.", "speaker": "Ana",
              "session_id": f"s{day}", "importance": importance,
              "occurred_at": START + timedelta(days=day)}],
            namespace="ana",
        )  # fmt: skip
        vault.dream(namespace="ana", apply=True, force=True, now=START + timedelta(days=day + 1))
    episodes = [r for r in vault.store.iter_records("ana") if isinstance(r, Episode)]
    assert len(episodes) == 3
    live = [e for e in episodes if e.expired_at is None]
    assert len(live) == 1 and live[0].importance == 0.9
    others = {e.id for e in episodes} - {live[0].id}
    assert set(live[0].metadata["merged_from"]) == others
    hit = vault.recall("salsa class", namespace="ana", k=1, now=START + timedelta(days=20))[0]
    assert set(hit.source_episode_ids) == {e.id for e in episodes}
