"""The values the store port takes and gives: a batch of writes, a document, a vector, what
changed since a watermark, a query over facts. No I/O."""

from __future__ import annotations

import json
from collections.abc import Sequence
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
