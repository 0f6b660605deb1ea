"""Keyword search at scale. In a large namespace, a query word most records contain is left
out when rarer words remain (small namespaces search every word, as before); a namespace
alone in its store is searched without its namespace token, with the same ranking."""

from __future__ import annotations

import math
from pathlib import Path

from memvault.config import IndexSettings
from memvault.kg.sqlite import SQLiteStore
from memvault.kg.sqlite.keywords import fts_query
from memvault.kg.store import Batch
from tests.store_records import NS, episode

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


def test_when_every_word_is_common_the_rarest_is_searched(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "v.db", index=LARGE)  # common: in more than 20%
    fill(store)  # garden in 100 of 101 records
    store.apply(Batch(namespace=NS, episodes=[episode(f"water the plants {i}") for i in range(40)]))
    hits = store.keyword_topk(NS, "episode", ["water", "plants"], 500)  # water: 140, plants: 40
    assert len(hits) == 40
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


# a window of 10 matches, nothing pruned as common
WINDOW = IndexSettings(common_term_min_records=20, common_term_share=1.0, keyword_scored_matches=10)


def test_beyond_the_window_records_score_the_idf_of_their_words(tmp_path: Path) -> None:
    """More matches than ``keyword_scored_matches``: each record among every word's newest
    matches scores the idf of the words it contains; a rare word's matches are all there."""
    store = SQLiteStore(tmp_path / "v.db", index=WINDOW)
    old_both = episode("the kayak is stored in the garden shed")
    gardens = [episode(f"garden note {i}") for i in range(30)]  # oldest first
    new_both = episode("kayak lessons, then the garden again")
    kayak_only = episode("kayak rental prices")
    filler = [episode(f"an unrelated line {i}") for i in range(20)]
    store.apply(Batch(namespace=NS, episodes=[old_both, *gardens, new_both, kayak_only, *filler]))
    store.apply(Batch(namespace="other", episodes=[episode("garden kayak", ns="other")]))
    hits = store.keyword_topk(NS, "episode", ["garden", "kayak"], 50)
    ids = [i for i, _ in hits]
    score = dict(hits)
    assert ids[0] == new_both.id  # both words, within both windows
    assert score[new_both.id] > score[kayak_only.id] > score[gardens[-1].id]  # kayak is rarer
    # the old record is older than garden's newest ten, so it scores kayak alone
    assert score[old_both.id] == score[kayak_only.id]
    assert ids.index(kayak_only.id) < ids.index(old_both.id)  # equal: newest first
    assert abs(score[new_both.id] - score[kayak_only.id] - score[gardens[-1].id]) < 1e-9
    # garden's newest ten matches are new_both and nine garden notes: the older notes are out
    garden_notes = [i for i in ids if i in {e.id for e in gardens}]
    assert garden_notes == [e.id for e in reversed(gardens[-9:])]
    assert len(ids) == 3 + 9  # no other namespace's record, nothing twice
    # words with fewer matches than the window: bm25 as before
    few = store.keyword_topk(NS, "episode", ["shed", "rental"], 50)
    assert {i for i, _ in few} == {old_both.id, kayak_only.id}
    store.close()


def test_a_small_store_scores_words_by_its_own_counts(tmp_path: Path) -> None:
    """bm25 floors the idf of a word in half of the rows or more: in a store of two notes
    "adopt" (in one) would score as little as "ana" (in both). Scored by the namespace's
    own counts, the word in one note weighs log 2 and the word in both nothing."""
    store = SQLiteStore(tmp_path / "v.db")
    cat, cello = episode("Ana: I adopted a cat named Miso."), episode("Ana: I play the cello.")
    store.apply(Batch(namespace=NS, episodes=[cat, cello]))
    hits = store.keyword_topk(NS, "episode", ["pet", "ana", "adopt"], 10)
    assert [i for i, _ in hits] == [cat.id]
    assert abs(hits[0][1] - math.log(2)) < 1e-9
    # a word in both tells neither apart: bm25's floored scores stand, for the caller to read
    both = store.keyword_topk(NS, "episode", ["ana"], 10)
    assert len(both) == 2 and all(s < 1e-4 for _, s in both)
    store.apply(Batch(namespace=NS, episodes=[episode(f"Ana: walk {i}") for i in range(8)]))
    # ten notes: "adopt" has a real bm25 idf again, and bm25 (not the recount) ranks
    (best, score), *rest = store.keyword_topk(NS, "episode", ["ana", "adopt"], 10)
    assert best == cat.id and score > 0.1 and score != math.log(10)
    assert len(rest) == 9 and all(s < 1e-4 for _, s in rest)  # "ana" alone: floored
    store.close()
