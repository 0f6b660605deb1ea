"""SQLite adapter of the store port: one file, WAL, explicit transactions."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel

from memvault.clock import ensure_utc
from memvault.errors import InvalidInputError, StoreError, UnusableStoreError
from memvault.kg.model import (
    Entity,
    Episode,
    Fact,
    Mention,
    Session,
    VectorKind,
    normalize_name,
)
from memvault.kg.sqlite.schema import migrate
from memvault.kg.sqlite.sql import CHUNK as _CHUNK
from memvault.kg.sqlite.sql import chunks as _chunks
from memvault.kg.sqlite.sql import marks as _marks
from memvault.kg.sqlite.sql import ns_token
from memvault.kg.sqlite.vectors import VectorCache
from memvault.kg.sqlite.writes import write_batch
from memvault.kg.store import Batch, Changes, Doc, FactQuery, Store

M = TypeVar("M", bound=BaseModel)


def fts_query(namespace: str, terms: Sequence[str]) -> str | None:
    quoted = ['"' + t.replace('"', '""') + '"' for t in terms if t.strip()]
    if not quoted:
        return None
    return f"ns : {ns_token(namespace)} AND ({' OR '.join(quoted)})"


class SQLiteStore(Store):
    def __init__(self, path: str | Path, *, synchronous: str = "FULL"):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30.0
            )
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute(f"PRAGMA synchronous = {synchronous}")
            self._conn.execute("PRAGMA busy_timeout = 30000")
            migrate(self._conn, self.path)
        except sqlite3.DatabaseError as exc:
            raise UnusableStoreError(f"cannot open {self.path} as a memvault store: {exc}") from exc
        self._lock = threading.RLock()
        self._depth = 0
        self._vectors = VectorCache()

    # -- transactions ---------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[None]:
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

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"sqlite read failed: {exc}") from exc

    # -- writes ---------------------------------------------------------------------------
    def apply(self, batch: Batch) -> int:
        batch.check()
        try:
            with self.transaction():
                return write_batch(self._conn, batch)
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

    def keyword_topk(
        self, namespace: str, kind: VectorKind, terms: Sequence[str], k: int
    ) -> list[tuple[str, float]]:
        table = {"episode": "episodes", "fact": "facts"}.get(kind)
        if table is None:
            raise InvalidInputError(f"no keyword index for {kind!r}", field="kind")
        match = fts_query(namespace, terms)
        if match is None or k <= 0:
            return []
        try:
            rows = self._read(
                f"SELECT t.id, -f.score FROM (SELECT rowid, bm25({table}_fts, 0.0, 1.0) AS score"
                f" FROM {table}_fts WHERE {table}_fts MATCH ? ORDER BY score LIMIT ?) f"
                f" JOIN {table} t ON t.rowid = f.rowid ORDER BY f.score",
                (match, k),
            )
        except StoreError as exc:
            raise InvalidInputError(f"keyword query not understood: {exc}", field="query") from exc
        return [(r[0], float(r[1])) for r in rows]

    def get_vectors(
        self, namespace: str, kind: VectorKind, ids: Sequence[str]
    ) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for part in _chunks(list(ids)):
            rows = self._read(
                f"SELECT id, vec FROM vectors WHERE namespace = ? AND kind = ?"
                f" AND id IN ({_marks(len(part))})",
                (namespace, kind, *part),
            )
            out.update({r[0]: np.frombuffer(r[1], dtype=np.float32).copy() for r in rows})
        return out

    # -- change feed, inventory -----------------------------------------------------------
    def watermark(self, namespace: str) -> int:
        rows = self._read("SELECT seq FROM namespaces WHERE name = ?", (namespace,))
        return int(rows[0][0]) if rows else 0

    def changed_since(self, namespace: str, watermark: int) -> Changes:
        with self._lock:
            mark = self.watermark(namespace)

            def since(table: str, model: type[M]) -> list[M]:
                rows = self._read(
                    f"SELECT body FROM {table} WHERE namespace = ? AND seq > ? AND seq <= ?"
                    " ORDER BY seq, id",
                    (namespace, watermark, mark),
                )
                return [model.model_validate_json(r[0]) for r in rows]

            deleted = self._read(
                "SELECT kind, id FROM deletions WHERE namespace = ? AND seq > ? AND seq <= ?"
                " ORDER BY seq",
                (namespace, watermark, mark),
            )
            return Changes(
                watermark=mark,
                episodes=since("episodes", Episode),
                facts=since("facts", Fact),
                entities=since("entities", Entity),
                sessions=since("sessions", Session),
                deleted=[(r[0], r[1]) for r in deleted],
            )

    def namespaces(self) -> list[str]:
        # names starting with "_" are memvault's own (e.g. API keys); never user data
        rows = self._read(
            "SELECT name FROM namespaces WHERE substr(name, 1, 1) != '_' ORDER BY name"
        )
        return [r[0] for r in rows]

    def counts(self, namespace: str) -> dict[str, int]:
        def one(sql: str) -> int:
            return int(self._read(sql, (namespace,))[0][0])

        return {
            "episodes": one("SELECT count(*) FROM episodes WHERE namespace = ?"),
            "facts": one("SELECT count(*) FROM facts WHERE namespace = ? AND expired = 0"),
            "facts_all": one("SELECT count(*) FROM facts WHERE namespace = ?"),
            "entities": one("SELECT count(*) FROM entities WHERE namespace = ?"),
            "sessions": one("SELECT count(*) FROM sessions WHERE namespace = ?"),
            "mentions": one("SELECT count(*) FROM mentions WHERE namespace = ?"),
            "vectors": one("SELECT count(*) FROM vectors WHERE namespace = ?"),
        }

    def iter_records(self, namespace: str) -> Iterator[Session | Episode | Entity | Fact | Mention]:
        tables: list[tuple[str, type[Session | Episode | Entity | Fact]]] = [
            ("sessions", Session),
            ("entities", Entity),
            ("episodes", Episode),
        ]
        for table, model in tables:
            for (body,) in self._read(
                f"SELECT body FROM {table} WHERE namespace = ? ORDER BY id", (namespace,)
            ):
                yield model.model_validate_json(body)
        for episode_id, entity_id in self._read(
            "SELECT episode_id, entity_id FROM mentions WHERE namespace = ?"
            " ORDER BY episode_id, entity_id",
            (namespace,),
        ):
            yield Mention(namespace=namespace, episode_id=episode_id, entity_id=entity_id)
        for (body,) in self._read(
            "SELECT body FROM facts WHERE namespace = ? ORDER BY id", (namespace,)
        ):
            yield Fact.model_validate_json(body)

    def mentions_of(self, namespace: str, episode_ids: Sequence[str]) -> list[Mention]:
        out: list[Mention] = []
        for part in _chunks(list(episode_ids)):
            out += [
                Mention(namespace=namespace, episode_id=ep, entity_id=ent)
                for ep, ent in self._read(
                    "SELECT episode_id, entity_id FROM mentions WHERE +namespace = ?"
                    f" AND episode_id IN ({_marks(len(part))}) ORDER BY episode_id, entity_id",
                    (namespace, *part),
                )
            ]
        return out

    def sessions_active_since(self, namespace: str, since: datetime | None) -> int:
        rows = self._read(
            "SELECT json_extract(body, '$.last_at') FROM sessions WHERE namespace = ?",
            (namespace,),
        )
        if since is None:
            return len(rows)
        # compared as times, not strings: ISO text with and without fractions sorts wrongly
        return sum(1 for (last,) in rows if ensure_utc(datetime.fromisoformat(last)) > since)

    def get_docs(self, namespace: str, kind: str, ids: Sequence[str]) -> list[Doc]:
        out: dict[str, Doc] = {}
        for part in _chunks(list(ids)):
            for row in self._read(
                "SELECT id, status, created_at, body FROM docs WHERE namespace = ? AND kind = ?"
                f" AND id IN ({_marks(len(part))})",
                (namespace, kind, *part),
            ):
                out[row[0]] = Doc.from_row(kind, row)
        return [out[i] for i in ids if i in out]

    def list_docs(
        self, namespace: str, kind: str, *, status: str | None = None, limit: int = 100
    ) -> list[Doc]:
        where = "namespace = ? AND kind = ?" + (" AND status = ?" if status is not None else "")
        params: tuple[Any, ...] = (namespace, kind) + ((status,) if status is not None else ())
        rows = self._read(
            f"SELECT id, status, created_at, body FROM docs WHERE {where}"
            " ORDER BY created_at DESC, seq DESC, id LIMIT ?",
            (*params, limit),
        )
        return [Doc.from_row(kind, row) for row in rows]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
