"""The store port: durable records and indexed lookups, nothing more.

Adapters (SQLite here; Cypher for Neo4j / FalkorDB) implement :class:`Store`; one contract
suite (``tests/integration/test_store_contract.py``) runs against each. Writes are values: a
:class:`Batch` of upserts and deletes applied atomically; reads are lookups by id, by entity,
vector top-k, keyword top-k and a changed-since watermark. Graph algorithms run in memory over
what the store returns, not inside it.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from memvault.kg.model import (
    Entity,
    Episode,
    Fact,
    Mention,
    RecordKind,
    Session,
    VectorKind,
)


@dataclass(frozen=True)
class VectorRecord:
    kind: VectorKind
    id: str
    vector: np.ndarray  # float32, 1-D; the store keeps it unit-normalised


@dataclass(frozen=True)
class Doc:
    """A small JSON document kept beside the records (dream runs, journal entries, review
    items): written in the same transaction as the records it describes."""

    kind: str
    id: str
    body: dict[str, Any]
    status: str | None = None
    created_at: datetime | None = None

    @classmethod
    def from_row(cls, kind: str, row: Sequence[Any]) -> Doc:
        """From (id, status, created_at epoch seconds, body JSON), as adapters store it."""
        created = datetime.fromtimestamp(float(row[2]), UTC)
        return cls(kind=kind, id=row[0], status=row[1], created_at=created, body=json.loads(row[3]))


@dataclass
class Batch:
    """Everything one logical write changes in a namespace, applied all-or-nothing.

    Records are upserted by id (a full record replaces the stored one). ``deletes`` removes
    records with their index entries, vectors and mentions.
    """

    namespace: str
    sessions: list[Session] = field(default_factory=list)
    episodes: list[Episode] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    vectors: list[VectorRecord] = field(default_factory=list)
    deletes: list[tuple[RecordKind, str]] = field(default_factory=list)
    docs: list[Doc] = field(default_factory=list)
    drop_docs: list[tuple[str, str]] = field(default_factory=list)  # (kind, id): retention
    # documents that describe no record (the recall log): the namespace's watermark stays,
    # so caches keyed on it and the dream's view of what changed are not disturbed
    quiet: bool = False
    # False: a power cut may lose this batch if it was the last (the recall log, prefetch
    # entries): the embedded store then commits it without waiting for the disk
    durable: bool = True

    def add(self, record: Session | Episode | Entity | Fact | Mention) -> None:
        """Upsert one record of any kind."""
        match record:
            case Session():
                self.sessions.append(record)
            case Episode():
                self.episodes.append(record)
            case Entity():
                self.entities.append(record)
            case Fact():
                self.facts.append(record)
            case Mention():
                self.mentions.append(record)

    def check(self) -> None:
        """Every record belongs to the batch's namespace, or nothing is written."""
        from memvault.errors import InvalidInputError

        if (
            self.quiet
            and (self.sessions or self.episodes or self.entities or self.facts or self.mentions)
        ) or (self.quiet and (self.vectors or self.deletes)):
            raise InvalidInputError("a quiet batch holds documents only", field="batch")

        for group in (self.sessions, self.episodes, self.entities, self.facts, self.mentions):
            for record in group:
                if record.namespace != self.namespace:
                    raise InvalidInputError(
                        f"record {getattr(record, 'id', '')!r} belongs to namespace"
                        f" {record.namespace!r}, the batch to {self.namespace!r}",
                        field="namespace",
                    )

    def is_empty(self) -> bool:
        return not any(
            (
                self.sessions,
                self.episodes,
                self.entities,
                self.facts,
                self.mentions,
                self.vectors,
                self.deletes,
                self.docs,
            )
        )


@dataclass
class Changes:
    """What changed in a namespace after a watermark, and the watermark to ask from next."""

    watermark: int
    episodes: list[Episode]
    facts: list[Fact]
    entities: list[Entity]
    sessions: list[Session]
    deleted: list[tuple[RecordKind, str]]


@dataclass(frozen=True)
class FactQuery:
    subject_ids: Sequence[str] | None = None
    predicate: str | None = None
    include_expired: bool = False
    limit: int = 1000
    offset: int = 0


class Store(ABC):
    """Durable records of every namespace. No method crosses namespaces."""

    # -- writes ---------------------------------------------------------------------------
    @abstractmethod
    def apply(self, batch: Batch) -> int:
        """Apply a batch atomically; return the namespace watermark it was written at."""

    @abstractmethod
    def transaction(self) -> AbstractContextManager[None]:
        """Group several ``apply`` calls into one all-or-nothing transaction."""

    # -- lookups by id --------------------------------------------------------------------
    @abstractmethod
    def get_episodes(self, namespace: str, ids: Sequence[str]) -> list[Episode]: ...

    @abstractmethod
    def get_facts(self, namespace: str, ids: Sequence[str]) -> list[Fact]: ...

    @abstractmethod
    def get_entities(self, namespace: str, ids: Sequence[str]) -> list[Entity]: ...

    @abstractmethod
    def get_sessions(self, namespace: str, ids: Sequence[str]) -> list[Session]: ...

    @abstractmethod
    def episodes_by_external_id(
        self, namespace: str, external_ids: Sequence[str]
    ) -> dict[str, str]:
        """external id → episode id, for those that exist."""

    @abstractmethod
    def episodes_by_hash(self, namespace: str, hashes: Sequence[str]) -> dict[str, str]:
        """content hash → id of the (first) stored episode with it, for those that exist."""

    # -- graph lookups --------------------------------------------------------------------
    @abstractmethod
    def find_entities(self, namespace: str, names: Sequence[str]) -> list[Entity]:
        """Entities whose normalised name or alias equals one of ``names`` (normalised)."""

    @abstractmethod
    def episodes_mentioning(
        self, namespace: str, entity_ids: Sequence[str], limit: int
    ) -> list[tuple[str, str]]:
        """(episode id, entity id) pairs, most recent episodes first, at most ``limit``."""

    @abstractmethod
    def facts_about(
        self, namespace: str, entity_ids: Sequence[str], include_expired: bool = False
    ) -> list[Fact]:
        """Facts whose subject or object is one of the entities."""

    @abstractmethod
    def list_facts(self, namespace: str, query: FactQuery) -> list[Fact]: ...

    @abstractmethod
    def list_episodes(
        self, namespace: str, *, session_id: str | None = None, limit: int = 1000, offset: int = 0
    ) -> list[Episode]:
        """Episodes in (occurred_at, position, id) order."""

    @abstractmethod
    def session_neighbours(
        self, namespace: str, episodes: Sequence[Episode], window: int
    ) -> dict[str, list[str]]:
        """episode id → ids of the episodes within ``window`` positions of it in its session
        (itself excluded), in session order."""

    # -- search ---------------------------------------------------------------------------
    @abstractmethod
    def vector_topk(
        self, namespace: str, kind: VectorKind, query: np.ndarray, k: int
    ) -> list[tuple[str, float]]:
        """(id, cosine) of the k nearest vectors, best first. Exact, not approximate."""

    @abstractmethod
    def keyword_topk(
        self, namespace: str, kind: VectorKind, terms: Sequence[str], k: int
    ) -> list[tuple[str, float]]:
        """(id, score) of the k best keyword matches of any of ``terms`` (higher is better)."""

    @abstractmethod
    def get_vectors(
        self, namespace: str, kind: VectorKind, ids: Sequence[str]
    ) -> dict[str, np.ndarray]: ...

    # -- change feed, inventory -----------------------------------------------------------
    @abstractmethod
    def changed_since(self, namespace: str, watermark: int) -> Changes: ...

    def changed_ids_since(
        self, namespace: str, watermark: int
    ) -> tuple[int, dict[str, list[str]], list[tuple[RecordKind, str]]]:
        """Like ``changed_since`` but only ids: (watermark, ids per record kind, deleted).
        For readers that hold the records already; adapters may answer without parsing."""
        c = self.changed_since(namespace, watermark)
        ids = {
            "episode": [e.id for e in c.episodes],
            "fact": [f.id for f in c.facts],
            "entity": [e.id for e in c.entities],
            "session": [s.id for s in c.sessions],
        }
        return c.watermark, ids, c.deleted

    def speakers_since(self, namespace: str, watermark: int) -> tuple[int, set[str]]:
        """Who spoke in the episodes written after ``watermark``, and the watermark to ask
        from next: recall keeps each namespace's speakers this way, reading only what is new.
        Adapters may answer without parsing whole records."""
        c = self.changed_since(namespace, watermark)
        return c.watermark, {e.speaker for e in c.episodes if e.speaker}

    @abstractmethod
    def watermark(self, namespace: str) -> int: ...

    @abstractmethod
    def namespaces(self) -> list[str]:
        """User namespaces, by name. Names starting with ``_`` are memvault's own (API keys)
        and never listed."""

    @abstractmethod
    def counts(self, namespace: str) -> dict[str, int]:
        """Numbers of episodes, facts (live / all), entities, sessions, mentions, vectors."""

    def tier_counts(self, namespace: str) -> list[dict[str, Any]]:
        """Live episodes (not retired) per (type, tier, level: full / digest / headline)
        with their text's characters, sorted. Adapters may answer without parsing every
        record."""
        cells: dict[tuple[str, str, str], list[int]] = {}
        for r in self.iter_records(namespace):
            if isinstance(r, Episode) and r.expired_at is None:
                level = str((r.metadata.get("digest") or {}).get("level", "full"))
                cell = cells.setdefault((r.type.value, r.tier.value, level), [0, 0])
                cell[0] += 1
                cell[1] += len(r.content)
        return [
            {"type": t, "tier": tier, "level": lv, "episodes": n, "chars": chars}
            for (t, tier, lv), (n, chars) in sorted(cells.items())
        ]

    @abstractmethod
    def iter_records(self, namespace: str) -> Iterator[Session | Episode | Entity | Fact | Mention]:
        """Every record of a namespace in a stable order (sessions, entities, episodes,
        mentions, facts; each by id): the logical dump."""

    @abstractmethod
    def mentions_of(self, namespace: str, episode_ids: Sequence[str]) -> list[Mention]:
        """The mentions of these episodes."""

    @abstractmethod
    def sessions_active_since(self, namespace: str, since: datetime | None) -> int:
        """How many sessions had activity (``last_at``) after ``since`` (None: all)."""

    def prepare_search(self, namespace: str) -> dict[str, str]:
        """Build what search needs before the first query asks (the embedded store's
        approximate vector index, saved for other processes); per kind, how search will run.
        Off the request path: the dream's worker and bulk ingest call it. Stores whose server
        keeps its own indexes need nothing."""
        return {}

    # -- documents ------------------------------------------------------------------------
    @abstractmethod
    def get_docs(self, namespace: str, kind: str, ids: Sequence[str]) -> list[Doc]: ...

    @abstractmethod
    def list_docs(
        self, namespace: str, kind: str, *, status: str | None = None, limit: int = 100
    ) -> list[Doc]:
        """Documents of a kind, newest first, optionally only those with ``status``."""

    def count_docs(self, namespace: str, kind: str) -> int:
        """How many documents of a kind (adapters count without reading them)."""
        return len(self.list_docs(namespace, kind, limit=10**9))

    @abstractmethod
    def iter_docs(self, namespace: str) -> Iterator[Doc]:
        """Every document of a namespace, of every kind (a forget scrubs them all)."""

    def purge_residue(self) -> dict[str, Any]:
        """After an erase: leave none of the deleted text in the storage itself (index
        segments, write-ahead log, freed pages). What was done, per step; a store that keeps
        no such residue, or cannot reach it, says so."""
        return {}

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
