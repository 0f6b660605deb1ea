"""Coordination in the vault's SQLite file (embedded mode)."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from memvault.coord.port import Coordination, Lease
from memvault.errors import StoreError


class SQLiteCoordination(Coordination):
    def __init__(self, path: str | Path):
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(
            path, timeout=30, isolation_level=None, check_same_thread=False
        )
        self._lock = threading.Lock()
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS coord_values (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
        )
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS coord_locks"
            " (name TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at REAL NOT NULL)"
        )

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"coordination state failed: {exc}") from exc

    def get(self, key: str) -> dict[str, Any] | None:
        rows = self._run("SELECT value FROM coord_values WHERE key = ?", (key,))
        return json.loads(rows[0][0]) if rows else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        self._run(
            "INSERT INTO coord_values(key, value) VALUES (?, ?)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, json.dumps(value, sort_keys=True, default=str)),
        )

    def acquire(self, name: str, owner: str, ttl_s: float, *, now: float | None = None) -> bool:
        at = time.time() if now is None else now
        # one statement: insert, or take over an expired (or our own) lease
        rows = self._run(
            "INSERT INTO coord_locks(name, owner, expires_at) VALUES (?, ?, ?)"
            " ON CONFLICT(name) DO UPDATE SET owner = excluded.owner,"
            " expires_at = excluded.expires_at"
            " WHERE coord_locks.expires_at <= ? OR coord_locks.owner = excluded.owner"
            " RETURNING owner",
            (name, owner, at + ttl_s, at),
        )
        return bool(rows)

    def release(self, name: str, owner: str) -> None:
        self._run("DELETE FROM coord_locks WHERE name = ? AND owner = ?", (name, owner))

    def holder(self, name: str, *, now: float | None = None) -> Lease | None:
        at = time.time() if now is None else now
        rows = self._run(
            "SELECT owner, expires_at FROM coord_locks WHERE name = ? AND expires_at > ?",
            (name, at),
        )
        return Lease(name, rows[0][0], rows[0][1]) if rows else None

    def close(self) -> None:
        with self._lock:
            self._conn.close()
