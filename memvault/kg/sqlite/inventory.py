"""The SQLite store's change feed, inventory and documents: reads that walk a namespace
rather than answer a query (the dream's orient stage, export, sync, the run and review
documents). A mixin of ``SQLiteStore``, which provides the connection, its lock and
``_read``."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from memvault.kg.model import Entity, Episode, Fact, Mention, RecordKind, Session
from memvault.kg.sqlite.schema import SPEAKER
from memvault.kg.sqlite.sql import chunks as _chunks
from memvault.kg.sqlite.sql import marks as _marks
from memvault.kg.store import Changes, Doc

M = TypeVar("M", bound=BaseModel)
TABLES = {"episode": "episodes", "fact": "facts", "entity": "entities", "session": "sessions"}


class Inventory:
    _conn: sqlite3.Connection
    _lock: threading.RLock

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError

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
                " AND kind != 'chunk' ORDER BY seq",  # chunks are vectors, not records
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

    def changed_ids_since(
        self, namespace: str, watermark: int
    ) -> tuple[int, dict[str, list[str]], list[tuple[RecordKind, str]]]:
        with self._lock:
            mark = self.watermark(namespace)
            ids = {
                kind: [
                    r[0]
                    for r in self._read(
                        f"SELECT id FROM {table} WHERE namespace = ? AND seq > ? AND seq <= ?"
                        " ORDER BY seq, id",
                        (namespace, watermark, mark),
                    )
                ]
                for kind, table in TABLES.items()
            }
            deleted = self._read(
                "SELECT kind, id FROM deletions WHERE namespace = ? AND seq > ? AND seq <= ?"
                " AND kind != 'chunk' ORDER BY seq",  # chunks are vectors, not records
                (namespace, watermark, mark),
            )
            return mark, ids, [(r[0], r[1]) for r in deleted]

    def speakers_since(self, namespace: str, watermark: int) -> tuple[int, set[str]]:
        with self._lock:
            mark = self.watermark(namespace)
            if watermark <= 0:  # everyone: from the index alone (9 ms at 100k episodes)
                rows = self._read(
                    f"SELECT DISTINCT {SPEAKER} FROM episodes WHERE namespace = ?", (namespace,)
                )
            else:  # the episodes written since: their bodies
                rows = self._read(
                    f"SELECT DISTINCT {SPEAKER} FROM episodes"
                    " WHERE namespace = ? AND seq > ? AND seq <= ?",
                    (namespace, watermark, mark),
                )
            return mark, {r[0] for r in rows if r[0]}

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

    def tier_counts(self, namespace: str) -> list[dict[str, Any]]:
        rows = self._read(
            "SELECT json_extract(body, '$.type'), json_extract(body, '$.tier'),"
            " coalesce(json_extract(body, '$.metadata.digest.level'), 'full'), count(*),"
            " sum(length(json_extract(body, '$.content')))"
            " FROM episodes WHERE namespace = ?"
            " AND json_extract(body, '$.expired_at') IS NULL"
            " GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
            (namespace,),
        )
        return [
            {"type": t, "tier": tier, "level": lv, "episodes": int(n), "chars": int(chars)}
            for t, tier, lv, n, chars in rows
        ]

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

    def sessions_written_since(self, namespace: str, watermark: int | None) -> int:
        rows = self._read(
            "SELECT COUNT(*) FROM sessions WHERE namespace = ? AND seq > ?",
            (namespace, -1 if watermark is None else watermark),
        )
        return int(rows[0][0])

    def days_without_session_written_since(self, namespace: str, watermark: int | None) -> int:
        rows = self._read(
            "SELECT COUNT(DISTINCT CAST(occurred_at / 86400 AS INTEGER)) FROM episodes"
            " WHERE namespace = ? AND session_id IS NULL AND seq > ?",
            (namespace, -1 if watermark is None else watermark),
        )
        return int(rows[0][0])

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

    def iter_docs(self, namespace: str) -> Iterator[Doc]:
        for kind, *row in self._read(
            "SELECT kind, id, status, created_at, body FROM docs WHERE namespace = ?"
            " ORDER BY kind, id",
            (namespace,),
        ):
            yield Doc.from_row(kind, row)

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

    def count_docs(self, namespace: str, kind: str) -> int:
        rows = self._read(
            "SELECT count(*) FROM docs WHERE namespace = ? AND kind = ?", (namespace, kind)
        )
        return int(rows[0][0])
