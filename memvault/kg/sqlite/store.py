"""SQLite adapter of the store port: one file, WAL, explicit transactions."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel

from memvault.config import IndexSettings
from memvault.errors import (
    InvalidInputError,
    SchemaVersionError,
    StoreError,
    UnusableStoreError,
)
from memvault.kg.model import (
    Entity,
    Episode,
    Fact,
    Session,
    VectorKind,
    normalize_name,
)
from memvault.kg.sqlite.inventory import Inventory
from memvault.kg.sqlite.keywords import KeywordSearch
from memvault.kg.sqlite.schema import SCHEMA_VERSION, migrate
from memvault.kg.sqlite.sql import CHUNK as _CHUNK
from memvault.kg.sqlite.sql import chunks as _chunks
from memvault.kg.sqlite.sql import marks as _marks
from memvault.kg.sqlite.vectors import AnnOptions, VectorCache
from memvault.kg.sqlite.writes import write_batch
from memvault.kg.store import Batch, FactQuery, Store

M = TypeVar("M", bound=BaseModel)


class SQLiteStore(Inventory, Store):
    def __init__(
        self,
        path: str | Path,
        *,
        synchronous: str = "FULL",
        index: IndexSettings | None = None,
        read_only: bool | None = None,
    ):
        """``read_only``: open without writing a byte (reads work, writes are refused with a
        clear error); by default, when the file exists and this process may not write it."""
        self.path = str(path)
        self.index = index or IndexSettings()
        if read_only is None:
            read_only = Path(self.path).is_file() and not os.access(self.path, os.W_OK)
        self.read_only = read_only
        if self.path != ":memory:" and not read_only:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = self._connect() if read_only else self._open(synchronous)
        except sqlite3.DatabaseError as exc:
            raise UnusableStoreError(f"cannot open {self.path} as a memvault store: {exc}") from exc
        self._synchronous = synchronous.upper()
        self._lock = threading.RLock()
        self._depth = 0
        self._vectors = VectorCache(
            AnnOptions(
                min_vectors=self.index.ann_min_vectors,
                connectivity=self.index.ann_connectivity,
                expansion_add=self.index.ann_expansion_add,
                expansion_search=self.index.ann_expansion_search,
                directory=None if self.path == ":memory:" else Path(self.path + "-ann"),
            )
        )
        self._keywords = KeywordSearch(self.index)

    def _open(self, synchronous: str) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute(f"PRAGMA synchronous = {synchronous}")
        conn.execute("PRAGMA busy_timeout = 30000")
        # a deleted row's bytes are overwritten, not left in free space: an erased memory's
        # text is not in the file afterwards (the keyword index and the log: purge_residue)
        conn.execute("PRAGMA secure_delete = ON")
        migrate(conn, self.path)
        return conn

    def _connect(self) -> sqlite3.Connection:
        """A read-only connection (``mode=ro``); the schema must be current, since upgrading
        it would write."""
        uri = f"file:{Path(self.path).resolve().as_posix()}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 30000")
        found = conn.execute("PRAGMA user_version").fetchone()[0]
        if found > SCHEMA_VERSION:
            raise SchemaVersionError(found, SCHEMA_VERSION, self.path)
        if found < SCHEMA_VERSION:
            raise UnusableStoreError(
                f"{self.path} is read-only and its schema ({found}) is older than this "
                f"memvault's ({SCHEMA_VERSION}): open it once with write access to upgrade it"
            )
        return conn

    def _writable(self) -> None:
        if self.read_only:
            raise UnusableStoreError(
                f"{self.path} is read-only: reads work, writes need write access to the file "
                "and its folder"
            )

    # -- transactions ---------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[None]:
        self._writable()
        with self._lock:
            outer = self._depth == 0
            if outer:
                self._conn.execute("BEGIN IMMEDIATE")
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if outer:
                    self._conn.execute("ROLLBACK")
                    self._vectors.clear()  # it may have read rows that no longer exist
                raise
            self._depth -= 1
            if outer:
                self._conn.execute("COMMIT")

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction: the reads inside see the file as of one moment (WAL keeps
        that version for them while writers go on). Inside a write's transaction, that."""
        with self._lock:
            if self._conn.in_transaction:
                yield
                return
            self._conn.execute("BEGIN DEFERRED")
            try:
                yield
            finally:
                if self._conn.in_transaction:
                    self._conn.execute("COMMIT")

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"sqlite read failed: {exc}") from exc

    # -- writes ---------------------------------------------------------------------------
    def apply(self, batch: Batch) -> int:
        batch.check()
        self._writable()
        try:
            with self._lock:
                relaxed = not batch.durable and self._depth == 0 and self._synchronous == "FULL"
                if relaxed:  # WAL + NORMAL: the commit does not wait for an fsync
                    self._conn.execute("PRAGMA synchronous = NORMAL")
                try:
                    with self.transaction():
                        return write_batch(self._conn, batch)
                finally:
                    if relaxed:
                        self._conn.execute("PRAGMA synchronous = FULL")
        except sqlite3.Error as exc:
            if "readonly" in str(exc):
                raise UnusableStoreError(
                    f"{self.path} is read-only, nothing was written: give this user write "
                    "access to the file and its folder"
                ) from exc
            raise StoreError(f"sqlite write failed, nothing was written: {exc}") from exc

    # -- lookups by id --------------------------------------------------------------------
    def _bodies(self, model: type[M], sql: str, ns: str, ids: Sequence[str]) -> list[M]:
        # ``+namespace`` keeps SQLite on the id index: with long IN lists its planner
        # otherwise scans the namespace index (30× slower at 100k episodes).
        found: dict[str, M] = {}
        for part in _chunks(list(dict.fromkeys(ids))):
            for (body,) in self._read(sql.format(marks=_marks(len(part))), (ns, *part)):
                record = model.model_validate_json(body)
                found[record.id] = record  # type: ignore[attr-defined]
        return [found[i] for i in dict.fromkeys(ids) if i in found]

    def get_episodes(self, namespace: str, ids: Sequence[str]) -> list[Episode]:
        return self._bodies(
            Episode,
            "SELECT body FROM episodes WHERE +namespace = ? AND id IN ({marks})",
            namespace,
            ids,
        )

    def get_facts(self, namespace: str, ids: Sequence[str]) -> list[Fact]:
        return self._bodies(
            Fact, "SELECT body FROM facts WHERE +namespace = ? AND id IN ({marks})", namespace, ids
        )

    def ids_starting_with(self, namespace: str, prefix: str, limit: int = 2) -> list[str]:
        # a range on the primary key: "abc" ≤ id < "abd" (ids are lower-case hex)
        high = prefix[:-1] + chr(ord(prefix[-1]) + 1) if prefix else "\uffff"
        found: list[str] = []
        for table in ("episodes", "facts"):
            rows = self._read(
                f"SELECT id FROM {table} WHERE id >= ? AND id < ? AND namespace = ? LIMIT ?",
                (prefix, high, namespace, limit),
            )
            found += [r[0] for r in rows]
        return found[:limit]

    def get_entities(self, namespace: str, ids: Sequence[str]) -> list[Entity]:
        return self._bodies(
            Entity,
            "SELECT body FROM entities WHERE +namespace = ? AND id IN ({marks})",
            namespace,
            ids,
        )

    def get_sessions(self, namespace: str, ids: Sequence[str]) -> list[Session]:
        return self._bodies(
            Session,
            "SELECT body FROM sessions WHERE namespace = ? AND id IN ({marks})",
            namespace,
            ids,
        )

    def episodes_by_external_id(
        self, namespace: str, external_ids: Sequence[str]
    ) -> dict[str, str]:
        out: dict[str, str] = {}
        for part in _chunks(list(external_ids)):
            rows = self._read(
                f"SELECT external_id, id FROM episodes WHERE namespace = ?"
                f" AND external_id IN ({_marks(len(part))})",
                (namespace, *part),
            )
            out.update(dict(rows))
        return out

    def episodes_by_hash(self, namespace: str, hashes: Sequence[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for part in _chunks(list(dict.fromkeys(hashes))):
            rows = self._read(
                f"SELECT content_hash, min(id) FROM episodes WHERE namespace = ?"
                f" AND content_hash IN ({_marks(len(part))}) GROUP BY content_hash",
                (namespace, *part),
            )
            out.update(dict(rows))
        return out

    # -- graph lookups --------------------------------------------------------------------
    def find_entities(self, namespace: str, names: Sequence[str]) -> list[Entity]:
        norms = list(dict.fromkeys(n for n in (normalize_name(x) for x in names) if n))
        ids: list[str] = []
        for part in _chunks(norms):
            rows = self._read(
                f"SELECT DISTINCT entity_id FROM entity_names WHERE namespace = ?"
                f" AND norm IN ({_marks(len(part))})",
                (namespace, *part),
            )
            ids.extend(r[0] for r in rows)
        return self.get_entities(namespace, ids)

    def episodes_mentioning(
        self, namespace: str, entity_ids: Sequence[str], limit: int
    ) -> list[tuple[str, str]]:
        ids = list(entity_ids)[:_CHUNK]
        if not ids:
            return []
        rows = self._read(
            f"SELECT m.episode_id, m.entity_id FROM mentions m JOIN episodes e"
            f" ON e.id = m.episode_id WHERE m.namespace = ? AND m.entity_id IN"
            f" ({_marks(len(ids))}) ORDER BY e.occurred_at DESC, e.id LIMIT ?",
            (namespace, *ids, limit),
        )
        return [(r[0], r[1]) for r in rows]

    def facts_about(
        self, namespace: str, entity_ids: Sequence[str], include_expired: bool = False
    ) -> list[Fact]:
        ids = list(entity_ids)[:_CHUNK]
        if not ids:
            return []
        live = "" if include_expired else " AND expired = 0"
        marks = _marks(len(ids))
        rows = self._read(
            f"SELECT body FROM facts WHERE namespace = ? AND (subject_id IN ({marks})"
            f" OR object_id IN ({marks})){live} ORDER BY rowid",
            (namespace, *ids, *ids),
        )
        return [Fact.model_validate_json(r[0]) for r in rows]

    def list_facts(self, namespace: str, query: FactQuery) -> list[Fact]:
        where = ["namespace = ?"]
        params: list[Any] = [namespace]
        if query.subject_ids is not None:
            ids = list(query.subject_ids)[:_CHUNK]
            if not ids:
                return []
            where.append(f"subject_id IN ({_marks(len(ids))})")
            params.extend(ids)
        if query.predicate is not None:
            where.append("predicate = ?")
            params.append(query.predicate)
        if not query.include_expired:
            where.append("expired = 0")
        rows = self._read(
            f"SELECT body FROM facts WHERE {' AND '.join(where)} ORDER BY rowid LIMIT ? OFFSET ?",
            (*params, query.limit, query.offset),
        )
        return [Fact.model_validate_json(r[0]) for r in rows]

    def list_episodes(
        self, namespace: str, *, session_id: str | None = None, limit: int = 1000, offset: int = 0
    ) -> list[Episode]:
        where, params = "namespace = ?", [namespace]
        if session_id is not None:
            where += " AND session_id = ?"
            params.append(session_id)
        rows = self._read(
            f"SELECT body FROM episodes WHERE {where} ORDER BY occurred_at, position, id"
            " LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [Episode.model_validate_json(r[0]) for r in rows]

    def session_neighbours(
        self, namespace: str, episodes: Sequence[Episode], window: int
    ) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for e in episodes:
            if e.session_id is None or e.position is None or window <= 0:
                continue
            rows = self._read(
                "SELECT id FROM episodes WHERE namespace = ? AND session_id = ?"
                " AND position BETWEEN ? AND ? AND position != ? ORDER BY position",
                (namespace, e.session_id, e.position - window, e.position + window, e.position),
            )
            out[e.id] = [r[0] for r in rows]
        return out

    # -- search ---------------------------------------------------------------------------
    def vector_topk(
        self, namespace: str, kind: VectorKind, query: np.ndarray, k: int
    ) -> list[tuple[str, float]]:
        with self._lock:
            return self._vectors.topk(self._conn, namespace, kind, query, k)

    def prepare_search(self, namespace: str) -> dict[str, str]:
        with self._lock:
            return {
                kind: self._vectors.prepare(self._conn, namespace, kind)
                for kind in ("episode", "fact", "entity", "chunk")
            }

    def keyword_topk(
        self, namespace: str, kind: VectorKind, terms: Sequence[str], k: int
    ) -> list[tuple[str, float]]:
        table = {"episode": "episodes", "fact": "facts"}.get(kind)
        if table is None:
            raise InvalidInputError(f"no keyword index for {kind!r}", field="kind")
        with self._lock:
            return self._keywords.topk(self._conn, namespace, table, terms, k)

    def get_vectors(
        self, namespace: str, kind: VectorKind, ids: Sequence[str]
    ) -> dict[str, np.ndarray]:
        with self._lock:
            out = self._vectors.held(self._conn, namespace, kind, list(ids))
        for part in _chunks([i for i in ids if i not in out]):
            rows = self._read(
                f"SELECT id, vec FROM vectors WHERE namespace = ? AND kind = ?"
                f" AND id IN ({_marks(len(part))})",
                (namespace, kind, *part),
            )
            out.update({r[0]: np.frombuffer(r[1], dtype=np.float32).copy() for r in rows})
        return out

    def purge_residue(self) -> dict[str, Any]:
        """The keyword indexes merged into fresh segments (FTS5 keeps a deleted row's terms
        in old segments until a merge), then the write-ahead log checkpointed and truncated
        (it holds earlier versions of changed pages). With ``secure_delete`` the pages these
        free are zeroed."""
        with self._lock:
            merged = self.compact_indexes()
            busy, _, _ = self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return merged | {"log": "truncated" if not busy else "busy"}

    def compact_indexes(self) -> dict[str, Any]:
        """FTS5 keeps a replaced row's terms in old segments until they merge: a dream that
        digested a thousand turns left the keyword index 64% larger than its live rows
        need (docs/benchmarks.md, "Tiers"). One merge of each index into one segment: 0.2 s
        at 100,000 rows of 40 words, 4.6 s at 100,000 rows of 250 (2 cores)."""
        self._writable()
        with self._lock:
            for table in ("episodes_fts", "facts_fts"):
                self._conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
        return {"keyword_indexes": "merged"}

    def compact(self) -> dict[str, Any]:
        """The keyword indexes merged, the write-ahead log folded into the file and truncated,
        then ``VACUUM``: the pages that deleted rows, digests' old texts and released
        journals freed go back to the disk. Nothing stored changes; it waits for other
        writers (busy timeout) and holds the file while it copies it."""
        files = [Path(self.path), Path(self.path + "-wal")]

        def size() -> int:
            return sum(f.stat().st_size for f in files if f.exists())

        before = size()
        with self._lock:
            self.compact_indexes()
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.execute("VACUUM")
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return {"compacted": True, "bytes_before": before, "bytes_after": size()}

    def close(self) -> None:
        with self._lock:
            self._vectors.save()
            self._conn.close()
