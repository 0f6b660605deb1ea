"""The store port: durable records and indexed lookups, nothing more.

Adapters (SQLite here; Cypher for Neo4j / FalkorDB) implement :class:`Store`; one contract
suite (``tests/integration/test_store_contract*.py``, ``test_store_reads.py``) runs against
each. The port has four roles (memvault.kg.roles): records (written as values: a
:class:`Batch` of upserts and deletes applied atomically, read by id and in order), search (by
name, entity, neighbourhood, vector top-k, keyword top-k), documents, and the change feed
(what changed since a watermark); and recall's composed reads (memvault.kg.reads). Graph
algorithms run in memory over what the store returns, not inside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext

from memvault.kg import reads
from memvault.kg.model import (
    Episode,
)
from memvault.kg.reads import Loaded, NamedRead, RecallQuery, RecallRead
from memvault.kg.roles import ChangeFeed, DocumentStore, RecordStore, SearchStore
from memvault.kg.values import Batch, Changes, Doc, FactQuery, VectorRecord

__all__ = [
    "Batch",
    "ChangeFeed",
    "Changes",
    "Doc",
    "DocumentStore",
    "FactQuery",
    "RecordStore",
    "SearchStore",
    "Store",
    "VectorRecord",
]


class Store(RecordStore, SearchStore, DocumentStore, ChangeFeed):
    """Durable records of every namespace, in all four roles. No method crosses namespaces.
    The composed reads below are recall's (memvault.kg.reads): one call each, whatever the
    adapter does inside."""

    def snapshot(self) -> AbstractContextManager[None]:
        """Reads inside see the store as of one moment (the embedded store: one read
        transaction). A server's store answers each query as of its own moment."""
        return nullcontext()

    def recall_read(self, query: RecallQuery) -> RecallRead:
        """The candidates of one recall, with the namespace's view (memvault.kg.reads)."""
        with self.snapshot():
            return reads.recall_read(self, query)

    def neighbours_read(
        self, namespace: str, anchors: Sequence[Episode], window: int, known: Sequence[str]
    ) -> Loaded:
        """Session neighbours of ``anchors``, with records and vectors of those not known."""
        with self.snapshot():
            return reads.neighbours_read(self, namespace, anchors, window, known)

    def named_read(
        self,
        namespace: str,
        episode_ids: Sequence[str],
        speakers: Sequence[str],
        subjects: Sequence[str],
        max_facts: int,
    ) -> NamedRead:
        """Mentions of the episodes, the speakers' entities, the facts about them all."""
        with self.snapshot():
            return reads.named_read(self, namespace, episode_ids, speakers, subjects, max_facts)

    def episodes_read(
        self,
        namespace: str,
        ids: Sequence[str],
        follow: Sequence[str],
        vectors_of: Sequence[tuple[str, str]],
        frames: Sequence[Sequence[str]] = (),
        framed: Callable[[Episode], bool] | None = None,
    ) -> Loaded:
        """Episodes with their vectors and the episodes that replaced them (one link on), the
        keyword matches of ``frames`` that ``framed`` keeps, and the vectors of the records
        ``vectors_of``."""
        with self.snapshot():
            return reads.episodes_read(self, namespace, ids, follow, vectors_of, frames, framed)

    def close(self) -> None: ...

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
