"""The store port's roles. An adapter implements all four (:class:`memvault.kg.store.Store`);
a caller that needs one asks for that one: the review queue reads documents, the dream's
orient step reads the change feed, recall searches.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from memvault.kg.model import Entity, Episode, Fact, Mention, RecordKind, Session, VectorKind
from memvault.kg.values import Batch, Changes, Doc, FactQuery

# a keyword score at most this says the match's words tell no record apart (bm25 gave them no
# idf: FTS5 floors it at 1e-6); recall leaves such matches out when they are most of the
# namespace
NO_EVIDENCE = 1e-4


class RecordStore(ABC):
    """Records by id and in order, written in atomic batches."""

    @abstractmethod
    def apply(self, batch: Batch) -> int:
        """Apply a batch atomically; return the namespace watermark it was written at."""

    @abstractmethod
    def transaction(self) -> AbstractContextManager[None]:
        """Group several ``apply`` calls into one all-or-nothing transaction."""

    @abstractmethod
    def get_episodes(self, namespace: str, ids: Sequence[str]) -> list[Episode]: ...

    @abstractmethod
    def get_facts(self, namespace: str, ids: Sequence[str]) -> list[Fact]: ...

    @abstractmethod
    def get_entities(self, namespace: str, ids: Sequence[str]) -> list[Entity]: ...

    @abstractmethod
    def get_sessions(self, namespace: str, ids: Sequence[str]) -> list[Session]: ...

    @abstractmethod
    def ids_starting_with(self, namespace: str, prefix: str, limit: int = 2) -> list[str]:
        """Ids of episodes and facts that start with ``prefix`` (at most ``limit``): what a
        short id shown in a table (the first 12 characters) stands for."""

    @abstractmethod
    def episodes_by_external_id(
        self, namespace: str, external_ids: Sequence[str]
    ) -> dict[str, str]:
        """external id → episode id, for those that exist."""

    @abstractmethod
    def episodes_by_hash(self, namespace: str, hashes: Sequence[str]) -> dict[str, str]:
        """content hash → id of the (first) stored episode with it, for those that exist."""

    @abstractmethod
    def list_facts(self, namespace: str, query: FactQuery) -> list[Fact]: ...

    @abstractmethod
    def list_episodes(
        self, namespace: str, *, session_id: str | None = None, limit: int = 1000, offset: int = 0
    ) -> list[Episode]:
        """Episodes in (occurred_at, position, id) order."""

    @abstractmethod
    def iter_records(self, namespace: str) -> Iterator[Session | Episode | Entity | Fact | Mention]:
        """Every record of a namespace in a stable order (sessions, entities, episodes,
        mentions, facts; each by id): the logical dump."""

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

    def compact_indexes(self) -> dict[str, Any]:
        """After many rewrites (a dream's digests and merges): the keyword indexes merged
        into fresh segments, so the rows a rewrite replaced stop taking room in the file.
        What was done; a store whose server keeps its own indexes has nothing to do."""
        return {}

    def compact(self) -> dict[str, Any]:
        """Give the storage back the room its deleted and rewritten rows left: what was done
        and the bytes before and after; a store whose server keeps its own files says so."""
        return {"compacted": False, "why": "the graph server keeps its own files"}

    def purge_residue(self) -> dict[str, Any]:
        """After an erase: leave none of the deleted text in the storage itself (index
        segments, write-ahead log, freed pages). What was done, per step; a store that keeps
        no such residue, or cannot reach it, says so."""
        return {}


class SearchStore(ABC):
    """Lookups that find records: by name, by entity, by neighbourhood, by meaning, by words."""

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
    def mentions_of(self, namespace: str, episode_ids: Sequence[str]) -> list[Mention]:
        """The mentions of these episodes."""

    @abstractmethod
    def session_neighbours(
        self, namespace: str, episodes: Sequence[Episode], window: int
    ) -> dict[str, list[str]]:
        """episode id → ids of the episodes within ``window`` positions of it in its session
        (itself excluded), in session order."""

    @abstractmethod
    def vector_topk(
        self, namespace: str, kind: VectorKind, query: np.ndarray, k: int
    ) -> list[tuple[str, float]]:
        """(id, cosine) of the k nearest vectors, best first: exact, or from an approximate
        index whose recall against exact top-k the adapter measures (the embedded store above
        ``index.ann_min_vectors``)."""

    @abstractmethod
    def keyword_topk(
        self, namespace: str, kind: VectorKind, terms: Sequence[str], k: int
    ) -> list[tuple[str, float]]:
        """(id, score) of the k best keyword matches of any of ``terms`` (higher is better;
        at most ``NO_EVIDENCE``: words that tell no record apart)."""

    @abstractmethod
    def get_vectors(
        self, namespace: str, kind: VectorKind, ids: Sequence[str]
    ) -> dict[str, np.ndarray]: ...

    def prepare_search(self, namespace: str) -> dict[str, str]:
        """Build what search needs before the first query asks (the embedded store's
        approximate vector index, saved for other processes); per kind, how search will run.
        Off the request path: the dream's worker and bulk ingest call it. Stores whose server
        keeps its own indexes need nothing."""
        return {}


class DocumentStore(ABC):
    """Small JSON documents beside the records (dream runs, journals, review items, logs)."""

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


class ChangeFeed(ABC):
    """What changed in a namespace after a watermark."""

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
    def sessions_written_since(self, namespace: str, watermark: int | None) -> int:
        """How many sessions had memories written (new or continued) after ``watermark``
        (None: all): by when the vault learned them, not by when they happened, so a
        history imported after a dream counts."""

    @abstractmethod
    def days_without_session_written_since(self, namespace: str, watermark: int | None) -> int:
        """On how many days (UTC) the memories without a session that were written (or
        rewritten) after ``watermark`` (None: all) happened: the dream's gate counts each
        such day as one session."""
