"""The store contract: every adapter must pass these, unchanged."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memvault.errors import InvalidInputError
from memvault.kg.model import (
    Episode,
    Mention,
    Session,
    chunk_id,
)
from memvault.kg.store import Batch, FactQuery, Store, VectorRecord
from tests.conftest import T0
from tests.store_records import NS, entity, episode, fact, vec


def test_apply_then_read_back_every_record_kind(store: Store) -> None:
    e, ent = episode("I live in Lisbon"), entity("Lisbon")
    f = fact(ent, "is_a", "city")
    s = Session(namespace=NS, id="s1", started_at=T0, last_at=T0, episode_count=1)
    store.apply(
        Batch(
            namespace=NS,
            sessions=[s],
            episodes=[e],
            entities=[ent],
            facts=[f],
            mentions=[Mention(namespace=NS, episode_id=e.id, entity_id=ent.id)],
        )
    )
    assert store.get_episodes(NS, [e.id]) == [e]
    assert store.get_entities(NS, [ent.id]) == [ent]
    assert store.get_facts(NS, [f.id]) == [f]
    assert store.get_sessions(NS, ["s1"]) == [s]
    assert store.episodes_mentioning(NS, [ent.id], limit=10) == [(e.id, ent.id)]


def test_get_preserves_requested_order_and_skips_missing(store: Store) -> None:
    a, b = episode("a"), episode("b")
    store.apply(Batch(namespace=NS, episodes=[a, b]))
    assert [x.id for x in store.get_episodes(NS, [b.id, "nope", a.id])] == [b.id, a.id]


def test_no_read_crosses_namespaces(store: Store) -> None:
    mine, theirs = episode("secret plans", ns="alice"), episode("secret plans", ns="bob")
    store.apply(
        Batch(
            namespace="alice",
            episodes=[mine],
            vectors=[VectorRecord("episode", mine.id, vec(1, 0))],
        )
    )
    store.apply(
        Batch(
            namespace="bob",
            episodes=[theirs],
            vectors=[VectorRecord("episode", theirs.id, vec(1, 0))],
        )
    )
    assert store.get_episodes("alice", [theirs.id]) == []
    assert [i for i, _ in store.keyword_topk("alice", "episode", ["secret"], 10)] == [mine.id]
    assert [i for i, _ in store.vector_topk("alice", "episode", vec(1, 0), 10)] == [mine.id]
    assert store.episodes_by_hash("alice", [theirs.content_hash]) == {}
    assert store.episodes_by_hash("bob", [theirs.content_hash]) == {theirs.content_hash: theirs.id}


def test_batch_with_a_foreign_record_is_refused_and_writes_nothing(store: Store) -> None:
    with pytest.raises(InvalidInputError, match="namespace"):
        store.apply(Batch(namespace=NS, episodes=[episode("ok"), episode("x", ns="bob")]))
    assert store.counts(NS)["episodes"] == 0


def test_failed_transaction_rolls_back_every_apply(store: Store) -> None:
    kept = episode("kept")
    store.apply(Batch(namespace=NS, episodes=[kept]))
    with pytest.raises(RuntimeError), store.transaction():
        store.apply(Batch(namespace=NS, episodes=[episode("lost 1")]))
        store.apply(Batch(namespace=NS, deletes=[("episode", kept.id)]))
        raise RuntimeError("crash between batches")
    assert [e.content for e in store.list_episodes(NS)] == ["kept"]


def test_upsert_replaces_record_and_reindexes_text(store: Store) -> None:
    e = episode("the cat sat")
    store.apply(Batch(namespace=NS, episodes=[e]))
    changed = e.model_copy(update={"content": "the dog ran"})
    store.apply(Batch(namespace=NS, episodes=[changed]))
    assert store.get_episodes(NS, [e.id])[0].content == "the dog ran"
    assert store.keyword_topk(NS, "episode", ["cat"], 5) == []
    assert [i for i, _ in store.keyword_topk(NS, "episode", ["dog"], 5)] == [e.id]


def test_keyword_topk_ranks_by_bm25_and_stems(store: Store) -> None:
    a, b, c = episode("running shoes for running"), episode("I ran home"), episode("cooking")
    store.apply(Batch(namespace=NS, episodes=[a, b, c]))
    hits = store.keyword_topk(NS, "episode", ["runs"], 5)
    assert [i for i, _ in hits][:1] == [a.id]
    assert c.id not in {i for i, _ in hits}
    assert store.keyword_topk(NS, "episode", ['"quoted" OR weird*'], 5) == []


def test_vector_topk_is_exact_and_follows_writes_and_deletes(
    store_factory: Callable[[], Store],
) -> None:
    store = store_factory()
    a, b = episode("a"), episode("b")
    store.apply(
        Batch(
            namespace=NS,
            episodes=[a, b],
            vectors=[
                VectorRecord("episode", a.id, vec(1, 0, 0)),
                VectorRecord("episode", b.id, vec(0, 1, 0)),
            ],
        )
    )
    assert [i for i, _ in store.vector_topk(NS, "episode", vec(0.9, 0.1, 0), 2)] == [a.id, b.id]
    c = episode("c")
    store.apply(
        Batch(namespace=NS, episodes=[c], vectors=[VectorRecord("episode", c.id, vec(1, 0.01, 0))])
    )
    top = store.vector_topk(NS, "episode", vec(1, 0, 0), 3)
    assert [i for i, _ in top] == [a.id, c.id, b.id]
    assert top[0][1] == pytest.approx(1.0, abs=1e-6)
    store.apply(Batch(namespace=NS, vectors=[VectorRecord("episode", a.id, vec(0, 0, 1))]))
    store.apply(Batch(namespace=NS, deletes=[("episode", c.id)]))
    # a's vector moved away and c is gone
    assert store.vector_topk(NS, "episode", vec(1, 0.1, 0), 3)[0][0] == b.id
    assert len(store.vector_topk(NS, "episode", vec(1, 0, 0), 10)) == 2


def test_an_episode_s_chunk_vectors_go_with_it_and_stay_out_of_the_change_feed(
    store_factory: Callable[[], Store],
) -> None:
    store, reader = store_factory(), store_factory()
    a, b = episode("a long one"), episode("another long one")
    chunks = [
        VectorRecord("chunk", chunk_id(e.id, n), vec(1, n, 0)) for e in (a, b) for n in (1, 2)
    ]
    store.apply(Batch(namespace=NS, episodes=[a, b], vectors=chunks))
    assert len(reader.vector_topk(NS, "chunk", vec(1, 1, 0), 10)) == 4  # the reader's index
    mark = store.watermark(NS)
    store.apply(Batch(namespace=NS, deletes=[("episode", a.id)]))
    left = store.vector_topk(NS, "chunk", vec(1, 1, 0), 10)
    assert sorted(i for i, _ in left) == [chunk_id(b.id, 1), chunk_id(b.id, 2)]
    assert sorted(i for i, _ in reader.vector_topk(NS, "chunk", vec(1, 1, 0), 10)) == sorted(
        i for i, _ in left
    )
    assert store.get_vectors(NS, "chunk", [chunk_id(a.id, 1), chunk_id(a.id, 2)]) == {}
    assert store.changed_since(NS, mark).deleted == [("episode", a.id)]  # records only


def test_vector_index_sees_writes_from_another_connection(
    store_factory: Callable[[], Store],
) -> None:
    reader, writer = store_factory(), store_factory()
    a = episode("a")
    writer.apply(
        Batch(namespace=NS, episodes=[a], vectors=[VectorRecord("episode", a.id, vec(1, 0))])
    )
    assert reader.vector_topk(NS, "episode", vec(1, 0), 5)[0][0] == a.id
    b = episode("b")
    writer.apply(
        Batch(namespace=NS, episodes=[b], vectors=[VectorRecord("episode", b.id, vec(0, 1))])
    )
    assert reader.vector_topk(NS, "episode", vec(0, 1), 5)[0][0] == b.id
    writer.apply(Batch(namespace=NS, deletes=[("episode", b.id)]))
    assert [i for i, _ in reader.vector_topk(NS, "episode", vec(0, 1), 5)] == [a.id]


def test_mismatched_query_dimension_is_a_clear_error(store: Store) -> None:
    a = episode("a")
    store.apply(
        Batch(namespace=NS, episodes=[a], vectors=[VectorRecord("episode", a.id, vec(1, 0))])
    )
    with pytest.raises(InvalidInputError, match="dimensions"):
        store.vector_topk(NS, "episode", vec(1, 0, 0), 3)


def test_find_entities_by_name_or_alias_normalised(store: Store) -> None:
    ny = entity("New York City", aliases=["NYC", "the Big Apple"])
    store.apply(Batch(namespace=NS, entities=[ny, entity("Boston")]))
    for name in ("new york city", "NYC", "Big Apple", "  New  York City "):
        assert [e.id for e in store.find_entities(NS, [name])] == [ny.id]
    assert store.find_entities(NS, ["Chicago"]) == []


def test_facts_about_and_list_facts_filters(store: Store) -> None:
    ana, lisbon = entity("Ana"), entity("Lisbon")
    lives = fact(ana, "lives_in", "Lisbon", object_id=lisbon.id)
    likes = fact(ana, "likes", "tea")
    old = fact(ana, "lives_in", "Berlin", expired_at=T0)
    store.apply(Batch(namespace=NS, entities=[ana, lisbon], facts=[lives, likes, old]))
    assert {f.id for f in store.facts_about(NS, [lisbon.id])} == {lives.id}
    assert {f.id for f in store.facts_about(NS, [ana.id])} == {lives.id, likes.id}
    assert {f.id for f in store.facts_about(NS, [ana.id], include_expired=True)} == {
        lives.id,
        likes.id,
        old.id,
    }
    by_pred = store.list_facts(NS, FactQuery(subject_ids=[ana.id], predicate="lives_in"))
    assert [f.id for f in by_pred] == [lives.id]
    assert store.list_facts(NS, FactQuery(subject_ids=[])) == []


def test_lookup_by_external_id_and_hash(store: Store) -> None:
    e = episode("hello", external_id="D1:1")
    store.apply(Batch(namespace=NS, episodes=[e]))
    assert store.episodes_by_external_id(NS, ["D1:1", "D9:9"]) == {"D1:1": e.id}
    assert store.episodes_by_hash(NS, [e.content_hash, "0" * 32]) == {e.content_hash: e.id}


def test_session_neighbours_follow_positions(store: Store) -> None:
    turns = [episode(f"turn {i}", position=i) for i in range(5)]
    other = episode("elsewhere", session="s2", position=1)
    store.apply(Batch(namespace=NS, episodes=[*turns, other]))
    around = store.session_neighbours(NS, [turns[2], turns[0], other], window=1)
    assert around[turns[2].id] == [turns[1].id, turns[3].id]
    assert around[turns[0].id] == [turns[1].id]
    assert around[other.id] == []


def test_changed_since_reports_upserts_and_deletes_after_a_watermark(store: Store) -> None:
    a = episode("a")
    mark = store.apply(Batch(namespace=NS, episodes=[a]))
    b, ent = episode("b"), entity("Bo")
    store.apply(Batch(namespace=NS, episodes=[b], entities=[ent]))
    store.apply(Batch(namespace=NS, deletes=[("episode", a.id)]))
    changes = store.changed_since(NS, mark)
    assert [e.id for e in changes.episodes] == [b.id]
    assert [e.id for e in changes.entities] == [ent.id]
    assert changes.deleted == [("episode", a.id)]
    assert changes.watermark == store.watermark(NS) > mark
    assert store.changed_since(NS, changes.watermark).episodes == []
    mark_ids, ids, deleted = store.changed_ids_since(NS, mark)  # the same, ids only
    assert (mark_ids, deleted) == (changes.watermark, changes.deleted)
    assert ids == {"episode": [b.id], "fact": [], "entity": [ent.id], "session": []}


def test_speakers_since_reads_who_spoke_after_a_watermark(store: Store) -> None:
    def said(who: str | None, text: str, ns: str = NS) -> Episode:
        return episode(text, ns=ns).model_copy(update={"speaker": who})

    store.apply(Batch(namespace=NS, episodes=[said("Ana", "hi"), said(None, "a note")]))
    store.apply(Batch(namespace="other", episodes=[said("Zed", "hello", "other")]))
    mark, names = store.speakers_since(NS, 0)
    assert (mark, names) == (store.watermark(NS), {"Ana"})
    store.apply(Batch(namespace=NS, episodes=[said("Bo", "hey"), said("Ana", "again")]))
    later, new = store.speakers_since(NS, mark)
    assert later > mark and new == {"Bo", "Ana"}
    assert store.speakers_since(NS, later) == (later, set())


def test_delete_entity_removes_names_and_mentions(store: Store) -> None:
    e, ent = episode("met Bo"), entity("Bo")
    store.apply(
        Batch(
            namespace=NS,
            episodes=[e],
            entities=[ent],
            mentions=[Mention(namespace=NS, episode_id=e.id, entity_id=ent.id)],
        )
    )
    store.apply(Batch(namespace=NS, deletes=[("entity", ent.id)]))
    assert store.find_entities(NS, ["Bo"]) == []
    assert store.episodes_mentioning(NS, [ent.id], limit=5) == []
    assert store.counts(NS)["mentions"] == 0
