"""SQLite adapter of the store port: one file, WAL, explicit transactions."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel

from memvault.clock import ensure_utc
from memvault.errors import InvalidInputError, StoreError
from memvault.kg.model import (
    Entity,
    Episode,
    Fact,
    Mention,
    RecordKind,
    Session,
    VectorKind,
    normalize_name,
)
from memvault.kg.sqlite.schema import migrate
from memvault.kg.sqlite.vectors import VectorCache, unit
from memvault.kg.store import Batch, Changes, Doc, FactQuery, Store, VectorRecord

M = TypeVar("M", bound=BaseModel)

# SQLite allows 32766 host parameters; stay well below for IN (...) lists.
_CHUNK = 900


def _chunks(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def _marks(n: int) -> str:
    return ",".join("?" * n)


def ns_token(namespace: str) -> str:
    """One alphanumeric token naming a namespace inside the FTS index."""
    return "n" + hashlib.blake2b(namespace.encode(), digest_size=8).hexdigest()


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
            raise StoreError(f"cannot open {self.path} as a memvault store: {exc}") from exc
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
        _check_namespace(batch)
        try:
            with self.transaction():
                return self._apply(batch)
        except sqlite3.Error as exc:
            raise StoreError(f"sqlite write failed, nothing was written: {exc}") from exc

    def _apply(self, batch: Batch) -> int:
        c = self._conn
        ns = batch.namespace
        c.execute(
            "INSERT OR IGNORE INTO namespaces(name, created_at) VALUES (?, ?)", (ns, time.time())
        )
        seq = c.execute(
            "UPDATE namespaces SET seq = seq + 1 WHERE name = ? RETURNING seq", (ns,)
        ).fetchone()[0]
        for kind, record_id in batch.deletes:
            self._delete(ns, kind, record_id, seq)
        for s in batch.sessions:
            c.execute(
                "INSERT INTO sessions(namespace, id, seq, body) VALUES (?, ?, ?, ?)"
                " ON CONFLICT(namespace, id) DO UPDATE SET seq = excluded.seq,"
                " body = excluded.body",
                (ns, s.id, seq, s.model_dump_json()),
            )
        self._upsert_episodes(ns, batch.episodes, seq)
        self._upsert_entities(ns, batch.entities, seq)
        self._upsert_facts(ns, batch.facts, seq)
        c.executemany(
            "INSERT OR IGNORE INTO mentions(namespace, entity_id, episode_id) VALUES (?, ?, ?)",
            [(ns, m.entity_id, m.episode_id) for m in batch.mentions],
        )
        self._upsert_vectors(ns, batch.vectors, seq)
        c.executemany(
            "INSERT INTO docs(namespace, kind, id, status, created_at, seq, body)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(namespace, kind, id) DO UPDATE SET"
            " status = excluded.status, seq = excluded.seq, body = excluded.body",
            [
                (
                    ns,
                    d.kind,
                    d.id,
                    d.status,
                    (d.created_at.timestamp() if d.created_at else time.time()),
                    seq,
                    json.dumps(d.body, sort_keys=True, default=str),
                )
                for d in batch.docs
            ],
        )
        return int(seq)

    def _upsert_episodes(self, ns: str, episodes: list[Episode], seq: int) -> None:
        c = self._conn
        existing = self._rowids("episodes", [e.id for e in episodes])
        token = ns_token(ns)
        for e in episodes:
            row = (
                ns,
                e.external_id,
                e.content_hash,
                e.session_id,
                e.position,
                e.occurred_at.timestamp(),
                seq,
                e.model_dump_json(),
            )
            rowid = existing.get(e.id)
            if rowid is None:
                cur = c.execute(
                    "INSERT INTO episodes(namespace, external_id, content_hash, session_id,"
                    " position, occurred_at, seq, body, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*row, e.id),
                )
                rowid = cur.lastrowid
            else:
                c.execute(
                    "UPDATE episodes SET namespace = ?, external_id = ?, content_hash = ?,"
                    " session_id = ?, position = ?, occurred_at = ?, seq = ?, body = ?"
                    " WHERE rowid = ?",
                    (*row, rowid),
                )
                c.execute("DELETE FROM episodes_fts WHERE rowid = ?", (rowid,))
            c.execute(
                "INSERT INTO episodes_fts(rowid, ns, text) VALUES (?, ?, ?)",
                (rowid, token, e.index_text()),
            )

    def _upsert_entities(self, ns: str, entities: list[Entity], seq: int) -> None:
        c = self._conn
        for ent in entities:
            c.execute(
                "INSERT INTO entities(id, namespace, seq, body) VALUES (?, ?, ?, ?)"
                " ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, body = excluded.body",
                (ent.id, ns, seq, ent.model_dump_json()),
            )
            c.execute("DELETE FROM entity_names WHERE entity_id = ?", (ent.id,))
            norms = {normalize_name(n) for n in ent.names()} - {""}
            c.executemany(
                "INSERT OR IGNORE INTO entity_names(namespace, norm, entity_id) VALUES (?, ?, ?)",
                [(ns, n, ent.id) for n in norms],
            )

    def _upsert_facts(self, ns: str, facts: list[Fact], seq: int) -> None:
        c = self._conn
        existing = self._rowids("facts", [f.id for f in facts])
        token = ns_token(ns)
        for f in facts:
            row = (
                ns,
                f.subject_id,
                f.object_id,
                f.predicate,
                int(f.expired_at is not None),
                seq,
                f.model_dump_json(),
            )
            rowid = existing.get(f.id)
            if rowid is None:
                cur = c.execute(
                    "INSERT INTO facts(namespace, subject_id, object_id, predicate, expired,"
                    " seq, body, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (*row, f.id),
                )
                rowid = cur.lastrowid
            else:
                c.execute(
                    "UPDATE facts SET namespace = ?, subject_id = ?, object_id = ?,"
                    " predicate = ?, expired = ?, seq = ?, body = ? WHERE rowid = ?",
                    (*row, rowid),
                )
                c.execute("DELETE FROM facts_fts WHERE rowid = ?", (rowid,))
            c.execute(
                "INSERT INTO facts_fts(rowid, ns, text) VALUES (?, ?, ?)",
                (rowid, token, f.statement),
            )

    def _upsert_vectors(self, ns: str, vectors: list[VectorRecord], seq: int) -> None:
        if not vectors:
            return
        c = self._conn
        replaced: set[str] = set()
        for kind in {v.kind for v in vectors}:
            ids = [v.id for v in vectors if v.kind == kind]
            for part in _chunks(ids):
                rows = c.execute(
                    f"SELECT id FROM vectors WHERE namespace = ? AND kind = ?"
                    f" AND id IN ({_marks(len(part))})",
                    (ns, kind, *part),
                ).fetchall()
                if rows:
                    replaced.add(kind)
        c.executemany(
            "INSERT INTO vectors(namespace, kind, id, seq, vec) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT(namespace, kind, id) DO UPDATE SET seq = excluded.seq,"
            " vec = excluded.vec",
            [(ns, v.kind, v.id, seq, unit(v.vector).tobytes()) for v in vectors],
        )
        for kind in {v.kind for v in vectors}:
            self._bump_vector_state(ns, kind, seq, new_gen=kind in replaced)

    def _bump_vector_state(self, ns: str, kind: str, seq: int, *, new_gen: bool) -> None:
        self._conn.execute(
            "INSERT INTO vector_state(namespace, kind, gen, seq) VALUES (?, ?, ?, ?)"
            " ON CONFLICT(namespace, kind) DO UPDATE SET seq = excluded.seq,"
            " gen = vector_state.gen + ?",
            (ns, kind, int(new_gen), seq, int(new_gen)),
        )

    def _delete(self, ns: str, kind: RecordKind, record_id: str, seq: int) -> None:
        c = self._conn
        if kind == "episode":
            for (rowid,) in c.execute(
                "SELECT rowid FROM episodes WHERE id = ? AND namespace = ?", (record_id, ns)
            ).fetchall():
                c.execute("DELETE FROM episodes_fts WHERE rowid = ?", (rowid,))
            c.execute("DELETE FROM episodes WHERE id = ? AND namespace = ?", (record_id, ns))
            c.execute(
                "DELETE FROM mentions WHERE episode_id = ? AND namespace = ?", (record_id, ns)
            )
        elif kind == "fact":
            for (rowid,) in c.execute(
                "SELECT rowid FROM facts WHERE id = ? AND namespace = ?", (record_id, ns)
            ).fetchall():
                c.execute("DELETE FROM facts_fts WHERE rowid = ?", (rowid,))
            c.execute("DELETE FROM facts WHERE id = ? AND namespace = ?", (record_id, ns))
        elif kind == "entity":
            c.execute("DELETE FROM entities WHERE id = ? AND namespace = ?", (record_id, ns))
            c.execute(
                "DELETE FROM entity_names WHERE entity_id = ? AND namespace = ?", (record_id, ns)
            )
            c.execute("DELETE FROM mentions WHERE entity_id = ? AND namespace = ?", (record_id, ns))
        elif kind == "session":
            c.execute("DELETE FROM sessions WHERE id = ? AND namespace = ?", (record_id, ns))
        else:
            raise InvalidInputError(f"unknown record kind {kind!r}", field="deletes")
        if kind != "session":
            gone = c.execute(
                "DELETE FROM vectors WHERE namespace = ? AND kind = ? AND id = ? RETURNING id",
                (ns, kind, record_id),
            ).fetchall()
            if gone:
                self._bump_vector_state(ns, kind, seq, new_gen=True)
        c.execute(
            "INSERT INTO deletions(namespace, kind, id, seq) VALUES (?, ?, ?, ?)",
            (ns, kind, record_id, seq),
        )

    def _rowids(self, table: str, ids: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for part in _chunks(list(ids)):
            rows = self._conn.execute(
                f"SELECT id, rowid FROM {table} WHERE id IN ({_marks(len(part))})", part
            ).fetchall()
            out.update(dict(rows))
        return out

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
        return [r[0] for r in self._read("SELECT name FROM namespaces ORDER BY name")]

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
                out[row[0]] = _doc(kind, row)
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
        return [_doc(kind, row) for row in rows]

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _check_namespace(batch: Batch) -> None:
    groups: list[Sequence[Any]] = [
        batch.sessions,
        batch.episodes,
        batch.entities,
        batch.facts,
        batch.mentions,
    ]
    for group in groups:
        for record in group:
            if record.namespace != batch.namespace:
                raise InvalidInputError(
                    f"record {getattr(record, 'id', '')!r} belongs to namespace"
                    f" {record.namespace!r}, the batch to {batch.namespace!r}",
                    field="namespace",
                )


def _doc(kind: str, row: Sequence[Any]) -> Doc:
    return Doc(
        kind=kind,
        id=row[0],
        status=row[1],
        created_at=datetime.fromtimestamp(row[2], UTC),
        body=json.loads(row[3]),
    )
