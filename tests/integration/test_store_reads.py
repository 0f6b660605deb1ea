"""The store contract, recall's composed reads (memvault.kg.reads): every adapter answers
them the same, whatever it does inside."""

from __future__ import annotations

from datetime import timedelta

from memvault.kg.model import Episode, Mention, Replacement
from memvault.kg.reads import RecallQuery
from memvault.kg.store import Batch, Doc, Store, VectorRecord
from tests.conftest import T0
from tests.store_records import NS, entity, episode, fact, vec


def said(text: str, speaker: str, position: int, **kw: object) -> Episode:
    return episode(text, position=position, minutes=position).model_copy(
        update={"speaker": speaker, **kw}
    )


def test_one_read_brings_every_channel_the_records_their_vectors_and_the_view(
    store: Store,
) -> None:
    lisbon = entity("Lisbon")
    a, b = said("I moved to Lisbon", "Maya", 1), said("Berlin was grey", "Maya", 2)
    f = fact(lisbon, "is_a", "city")
    store.apply(
        Batch(
            namespace=NS,
            episodes=[a, b],
            entities=[lisbon.model_copy(update={"mention_count": 1})],
            facts=[f],
            mentions=[Mention(namespace=NS, episode_id=a.id, entity_id=lisbon.id)],
            vectors=[
                VectorRecord("episode", a.id, vec(1, 0)),
                VectorRecord("episode", b.id, vec(0, 1)),
            ],
            docs=[
                Doc(kind="gap", id="g1", body={"n": 1}, status="open", created_at=T0),
                Doc(kind="owed", id=b.id, body={}, status="pending", created_at=T0),
            ],
        )
    )
    read = store.recall_read(
        RecallQuery(
            namespace=NS,
            vector=vec(1, 0),
            n=10,
            terms=["lisbon"],
            names=["Lisbon"],
            docs=[("gap", "g1"), ("gap", "missing")],
            pending_kind="owed",
        )
    )
    assert read.dense["episode"][0][0] == a.id
    assert [i for i, _ in read.keyword["episode"]] == [a.id]
    assert [e.id for e in read.entities] == [lisbon.id]
    assert read.mentioning == [(a.id, lisbon.id)]
    assert [x.id for x in read.facts_about] == [f.id]
    assert set(read.episodes) == {a.id, b.id} and read.episodes[a.id] == a
    assert read.facts[f.id] == f
    # vectors come for what the dense search did not rank (recall computes their cosine)
    assert ("episode", a.id) not in read.vectors
    assert [d.id for d in read.docs] == ["g1"]
    assert read.pending == 1
    assert read.view.mark == store.watermark(NS)
    assert read.view.speakers == {"Maya"} and read.view.episodes == 2


def test_the_view_is_read_again_only_when_the_watermark_moved(store: Store) -> None:
    store.apply(Batch(namespace=NS, episodes=[said("hello", "Maya", 1)]))
    ask = RecallQuery(namespace=NS, vector=vec(1, 0), n=5, terms=["hello"], names=[])
    first = store.recall_read(ask).view
    again = store.recall_read(RecallQuery(**{**ask.__dict__, "known": first})).view
    assert again is first  # nothing changed: what recall held is kept
    store.apply(Batch(namespace=NS, episodes=[said("hi there", "Tomás", 2)]))
    moved = store.recall_read(RecallQuery(**{**ask.__dict__, "known": first})).view
    assert moved.mark > first.mark
    assert moved.speakers == {"Maya", "Tomás"} and moved.episodes == 2


def test_a_verdict_read_follows_one_link_and_no_further(store: Store) -> None:
    at = T0 + timedelta(days=1)
    newest = said("we moved on to Porto", "Maya", 3)
    newer = said("we moved to Lisbon", "Maya", 2).model_copy(
        update={"replaced_by": [Replacement(episode_id=newest.id, at=at, attribute="residence")]}
    )
    old = said("I live in Berlin", "Maya", 1).model_copy(
        update={"replaced_by": [Replacement(episode_id=newer.id, at=at, attribute="residence")]}
    )
    ent = entity("Berlin")
    f = fact(ent, "is_a", "city")
    store.apply(
        Batch(
            namespace=NS,
            episodes=[old, newer, newest],
            entities=[ent],
            facts=[f],
            vectors=[VectorRecord("fact", f.id, vec(0, 1))],
        )
    )
    loaded = store.episodes_read(NS, [old.id], follow=[], vectors_of=[("fact", f.id)])
    assert set(loaded.episodes) == {old.id}
    assert set(loaded.replacers) == {newer.id}  # one link on: Porto is not read
    assert ("fact", f.id) in loaded.vectors
    followed = store.episodes_read(NS, [], follow=[newest.id], vectors_of=[])
    assert set(followed.episodes) == {newest.id} and not followed.replacers


def test_neighbours_and_names_come_with_their_records(store: Store) -> None:
    turns = [said(f"turn {i}", "Maya" if i % 2 else "Ana", i) for i in range(5)]
    maya, lisbon = entity("Maya"), entity("Lisbon")
    about = fact(lisbon, "is_a", "city")
    store.apply(
        Batch(
            namespace=NS,
            episodes=turns,
            entities=[maya, lisbon],
            facts=[about, fact(maya, "lives_in", "Lisbon")],
            mentions=[Mention(namespace=NS, episode_id=turns[2].id, entity_id=lisbon.id)],
            vectors=[VectorRecord("episode", t.id, vec(1, i)) for i, t in enumerate(turns)],
        )
    )
    near = store.neighbours_read(NS, [turns[2]], 1, known=[turns[1].id])
    assert near.around == {turns[2].id: [turns[1].id, turns[3].id]}
    assert set(near.episodes) == {turns[3].id}  # the known one is not read again
    assert set(near.vectors) == {("episode", turns[3].id)}
    named = store.named_read(NS, [turns[2].id], ["Maya"], [], max_facts=10)
    assert [m.entity_id for m in named.mentions] == [lisbon.id]
    assert [e.id for e in named.speakers] == [maya.id]
    assert {x.subject_id for x in named.facts} == {maya.id, lisbon.id}


def test_a_short_id_stands_for_the_one_record_it_starts(store: Store) -> None:
    """Tables show the first 12 characters of an id: the CLI takes them back."""
    maya = entity("Maya")
    a = episode("first").model_copy(update={"id": "abc1230000000000000000000000000a"})
    b = episode("second").model_copy(update={"id": "abc1240000000000000000000000000b"})
    f = fact(maya, "likes", "tea").model_copy(update={"id": "abd0000000000000000000000000000f"})
    store.apply(Batch(namespace=NS, episodes=[a, b], entities=[maya], facts=[f]))
    assert store.ids_starting_with(NS, "abc123") == [a.id]
    assert sorted(store.ids_starting_with(NS, "abc12")) == [a.id, b.id]
    assert store.ids_starting_with(NS, "abd") == [f.id]
    assert store.ids_starting_with(NS, "abe") == []
    assert store.ids_starting_with("elsewhere", "abc123") == []
