"""The store contract, continued: iteration over records and documents, documents by kind
and status, dropped documents, mentions and active sessions, tier counts. Every adapter
must pass these, unchanged."""

from __future__ import annotations

from datetime import timedelta

from memvault.kg.model import (
    Mention,
    Session,
)
from memvault.kg.store import Batch, Doc, Store
from tests.conftest import T0
from tests.store_records import NS, entity, episode, fact


def test_iter_records_is_stable_and_complete(store: Store) -> None:
    e, ent = episode("x"), entity("X")
    f = fact(ent, "is", "y")
    store.apply(
        Batch(
            namespace=NS,
            episodes=[e],
            entities=[ent],
            facts=[f],
            mentions=[Mention(namespace=NS, episode_id=e.id, entity_id=ent.id)],
        )
    )
    first = [r.model_dump_json() for r in store.iter_records(NS)]
    assert first == [r.model_dump_json() for r in store.iter_records(NS)]
    assert len(first) == 4
    assert store.namespaces() == [NS]


def test_docs_upsert_list_newest_first_filter_by_status_and_stay_in_namespace(
    store: Store,
) -> None:
    docs = [
        Doc(
            kind="run",
            id=f"r{i}",
            status="done" if i % 2 else "planned",
            body={"n": i},
            created_at=T0 + timedelta(hours=i),
        )
        for i in range(4)
    ]
    store.apply(Batch(namespace=NS, docs=docs))
    assert [d.id for d in store.list_docs(NS, "run")] == ["r3", "r2", "r1", "r0"]
    assert [d.id for d in store.list_docs(NS, "run", status="done")] == ["r3", "r1"]
    assert store.list_docs(NS, "journal") == [] and store.list_docs("bob", "run") == []
    store.apply(Batch(namespace=NS, docs=[Doc("run", "r0", {"n": 9}, status="done")]))
    (got,) = store.get_docs(NS, "run", ["r0"])
    assert got.body == {"n": 9} and got.status == "done" and got.created_at == T0
    assert store.get_docs(NS, "run", ["missing", "r1"])[0].id == "r1"


def test_a_batch_that_need_not_wait_for_the_disk_is_written_like_any_other(store: Store) -> None:
    store.apply(Batch(namespace=NS, docs=[Doc("log", "l1", {"q": 1})], quiet=True, durable=False))
    assert [d.id for d in store.list_docs(NS, "log")] == ["l1"]
    conn = getattr(store, "_conn", None)
    if conn is not None:  # the embedded store: back to waiting for the disk afterwards
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_dropped_docs_are_gone_and_only_those(store: Store) -> None:
    docs = [Doc(kind=k, id=f"d{i}", body={"n": i}) for i in range(3) for k in ("log", "diary")]
    store.apply(Batch(namespace=NS, docs=docs))
    store.apply(Batch(namespace="bob", docs=[Doc(kind="log", id="d0", body={})]))
    mark = store.watermark(NS)
    store.apply(Batch(namespace=NS, drop_docs=[("log", "d0"), ("log", "d2"), ("log", "nope")],
                      quiet=True))  # fmt: skip
    assert sorted(d.id for d in store.list_docs(NS, "log")) == ["d1"]
    assert len(store.list_docs(NS, "diary")) == 3 and len(store.list_docs("bob", "log")) == 1
    assert store.watermark(NS) == mark  # retention is quiet: nothing the dream must read


def test_iter_docs_yields_every_kind_of_one_namespace(store: Store) -> None:
    docs = [Doc(kind=k, id=f"d{i}", body={"n": i}) for i in range(2) for k in ("log", "diary")]
    store.apply(Batch(namespace=NS, docs=docs))
    store.apply(Batch(namespace="bob", docs=[Doc(kind="log", id="x", body={})]))
    got = sorted((d.kind, d.id, d.body["n"]) for d in store.iter_docs(NS))
    assert got == [("diary", "d0", 0), ("diary", "d1", 1), ("log", "d0", 0), ("log", "d1", 1)]
    assert store.purge_residue() is not None  # a store without residue says so: {}


def test_mentions_of_and_sessions_written_since(store: Store) -> None:
    a, b = episode("Ana met Bo"), episode("Bo left", session="s2")
    ana, bo = entity("Ana"), entity("Bo")
    s1 = Session(namespace=NS, id="s1", started_at=T0, last_at=T0)
    store.apply(
        Batch(
            namespace=NS,
            sessions=[s1],
            episodes=[a],
            entities=[ana, bo],
            mentions=[Mention(namespace=NS, episode_id=a.id, entity_id=e.id) for e in (ana, bo)],
        )
    )
    first = store.watermark(NS)
    # a session written later counts after ``first``, however long ago it happened
    old = Session(namespace=NS, id="s2", started_at=T0, last_at=T0 - timedelta(days=400))
    store.apply(Batch(namespace=NS, sessions=[old], episodes=[b]))
    second = store.watermark(NS)
    elsewhere = Session(namespace="other", id="s9", started_at=T0, last_at=T0)
    store.apply(Batch(namespace="other", sessions=[elsewhere]))
    assert {m.entity_id for m in store.mentions_of(NS, [a.id])} == {ana.id, bo.id}
    assert store.mentions_of(NS, [b.id]) == []
    assert store.sessions_written_since(NS, None) == 2
    assert store.sessions_written_since(NS, first) == 1
    assert store.sessions_written_since(NS, second) == 0
    s1.last_at = T0 + timedelta(hours=1)  # the first session goes on
    store.apply(Batch(namespace=NS, sessions=[s1], episodes=[episode("Ana again")]))
    assert store.sessions_written_since(NS, second) == 1


def test_days_without_session_written_since_counts_days_of_sessionless_memories(
    store: Store,
) -> None:
    day = 24 * 60
    loose = [
        episode(f"note {n}", session=None, minutes=m)
        for n, m in enumerate((0, 5, day + 1, 3 * day + 1, 3 * day + 2))
    ]
    store.apply(Batch(namespace=NS, episodes=[*loose, episode("in a session", minutes=4 * day)]))
    mark = store.watermark(NS)
    other = episode("elsewhere", ns="other", session=None, minutes=5 * day)
    store.apply(Batch(namespace="other", episodes=[other]))
    assert store.days_without_session_written_since(NS, None) == 3  # days 0, 1 and 3
    assert store.days_without_session_written_since(NS, mark) == 0
    # written later, about a day long past (an import): it counts
    store.apply(Batch(namespace=NS, episodes=[episode("older", session=None, minutes=-9 * day)]))
    assert store.days_without_session_written_since(NS, mark) == 1


def test_tier_counts_group_episodes_by_type_tier_and_level(store: Store) -> None:
    from memvault.kg.model import MemoryType, Tier

    whole = episode("kept whole")
    cold = episode("a digest of it")
    cold.tier, cold.type = Tier.COLD, MemoryType.PROJECT
    cold.metadata = {"digest": {"level": "digest", "chars_before": 900}}
    other = episode("elsewhere", ns="other")
    store.apply(Batch(namespace=NS, episodes=[whole, cold]))
    store.apply(Batch(namespace="other", episodes=[other]))
    assert store.tier_counts(NS) == [
        {"type": "episodic", "tier": "hot", "level": "full", "episodes": 1, "chars": 10},
        {"type": "project", "tier": "cold", "level": "digest", "episodes": 1, "chars": 14},
    ]
