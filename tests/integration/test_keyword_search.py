"""Keyword search at scale. In a large namespace, a query word most records contain is left
out when rarer words remain (small namespaces search every word, as before); a namespace
alone in its store is searched without its namespace token, with the same ranking."""

from __future__ import annotations

from pathlib import Path

from memvault.config import IndexSettings
from memvault.kg.sqlite import SQLiteStore
from memvault.kg.sqlite.keywords import fts_query
from memvault.kg.store import Batch
from tests.integration.test_store_contract import NS, episode

LARGE = IndexSettings(common_term_min_records=50, common_term_share=0.2)
EVERY_WORD = IndexSettings(common_term_min_records=10**9)


def fill(store: SQLiteStore) -> set[str]:
    """100 notes about the garden; three of them also about a kayak."""
    eps = [
        episode(f"the garden needs water {i}" + (" and the kayak leaks" if i % 40 == 0 else ""))
        for i in range(100)
    ]
    eps.append(episode("a note without either word"))
    store.apply(Batch(namespace=NS, episodes=eps))
    return {e.id for e in eps if "kayak" in e.content}


def test_a_common_word_is_left_out_while_a_rare_one_remains(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    pruned, full = SQLiteStore(path, index=LARGE), SQLiteStore(path, index=EVERY_WORD)
    kayak = fill(pruned)
    hits = pruned.keyword_topk(NS, "episode", ["garden", "kayak"], 50)
    assert {i for i, _ in hits} == kayak
    every = full.keyword_topk(NS, "episode", ["garden", "kayak"], 50)
    assert len(every) == 50  # every word searched: garden-only notes fill the list
    assert {i for i, _ in every[:3]} == kayak  # and the kayak notes still lead it
    # only common words: the rarest one is still searched
    assert len(pruned.keyword_topk(NS, "episode", ["garden", "water"], 200)) == 100
    pruned.close()
    full.close()


def test_a_namespace_below_the_size_keeps_every_word(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "v.db", index=IndexSettings(common_term_min_records=1000))
    fill(store)
    assert len(store.keyword_topk(NS, "episode", ["garden", "kayak"], 200)) == 100
    store.close()


def test_counts_follow_writes(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "v.db", index=LARGE)
    fill(store)
    assert len(store.keyword_topk(NS, "episode", ["kayak", "garden"], 200)) == 3
    more = [episode(f"kayak trip {i}") for i in range(60)]  # kayak is now common too
    store.apply(Batch(namespace=NS, episodes=more))
    hits = store.keyword_topk(NS, "episode", ["kayak", "garden"], 500)
    assert len(hits) == 63  # both common: the rarer (kayak, 63 of 161) is searched alone
    store.close()


def test_a_namespace_alone_ranks_exactly_as_when_scoped(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "v.db", index=EVERY_WORD)
    fill(store)
    alone = store.keyword_topk(NS, "episode", ["kayak", "water"], 20)
    scoped = store._conn.execute(
        "SELECT t.id, -f.score FROM (SELECT rowid, bm25(episodes_fts, 0.0, 1.0) AS score"
        " FROM episodes_fts WHERE episodes_fts MATCH ? ORDER BY score LIMIT 20) f"
        " JOIN episodes t ON t.rowid = f.rowid ORDER BY f.score",
        (fts_query(NS, ["kayak", "water"], scoped=True),),
    ).fetchall()
    assert alone == [(i, float(s)) for i, s in scoped]
    assert len(alone) == 20
    # another namespace arrives: each is confined to its own rows again
    store.apply(Batch(namespace="other", episodes=[episode("kayak water", ns="other")]))
    mine = {i for i, _ in store.keyword_topk(NS, "episode", ["kayak", "water"], 500)}
    theirs = store.keyword_topk("other", "episode", ["kayak", "water"], 500)
    assert len(mine) == 100 and len(theirs) == 1 and theirs[0][0] not in mine
    assert store.keyword_topk("nobody", "episode", ["kayak"], 10) == []
    store.close()
