"""Exact vector search over a per-namespace matrix held in memory.

The matrix is loaded from the ``vectors`` table on first use and kept correct after writes,
including writes by other processes: before each search the cache compares its (gen, seq)
with the table's ``vector_state`` row. A higher seq with the same gen means rows were only
added, so just those rows are appended; a new gen (a vector replaced or removed) reloads.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

import numpy as np

from memvault.errors import InvalidInputError, StoreError


@dataclass
class _Matrix:
    gen: int = -1
    seq: int = -1
    ids: list[str] = field(default_factory=list)
    data: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))

    @property
    def n(self) -> int:
        return len(self.ids)

    def append(self, ids: list[str], rows: np.ndarray) -> None:
        if not ids:
            return
        if self.n == 0:
            self.data = np.zeros((max(1024, 2 * len(ids)), rows.shape[1]), dtype=np.float32)
        elif self.data.shape[1] != rows.shape[1]:
            raise StoreError(
                f"vectors of {rows.shape[1]} and {self.data.shape[1]} dimensions in one index: "
                "re-embed the namespace with one embedder (export, then import)"
            )
        need = self.n + len(ids)
        if need > self.data.shape[0]:
            grown = np.zeros((max(need, 2 * self.data.shape[0]), rows.shape[1]), np.float32)
            grown[: self.n] = self.data[: self.n]
            self.data = grown
        self.data[self.n : need] = rows
        self.ids.extend(ids)


def unit(vector: np.ndarray) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v


class VectorCache:
    def __init__(self) -> None:
        self._matrices: dict[tuple[str, str], _Matrix] = {}

    def clear(self) -> None:
        self._matrices.clear()

    def topk(
        self, conn: sqlite3.Connection, namespace: str, kind: str, query: np.ndarray, k: int
    ) -> list[tuple[str, float]]:
        m = self._fresh(conn, namespace, kind)
        if m.n == 0 or k <= 0:
            return []
        q = unit(query)
        if q.shape[0] != m.data.shape[1]:
            raise InvalidInputError(
                f"query vector has {q.shape[0]} dimensions, the index has {m.data.shape[1]}",
                field="query",
                hint="recall with the embedder the namespace was written with",
            )
        scores = m.data[: m.n] @ q
        if k >= m.n:
            order = np.argsort(-scores)
        else:
            top = np.argpartition(-scores, k)[:k]
            order = top[np.argsort(-scores[top])]
        return [(m.ids[i], float(scores[i])) for i in order]

    def _fresh(self, conn: sqlite3.Connection, namespace: str, kind: str) -> _Matrix:
        row = conn.execute(
            "SELECT gen, seq FROM vector_state WHERE namespace = ? AND kind = ?",
            (namespace, kind),
        ).fetchone()
        gen, seq = row if row else (0, 0)
        key = (namespace, kind)
        m = self._matrices.get(key)
        if m is None or m.gen != gen:
            m = _Matrix(gen=gen)
            self._matrices[key] = m
            since = -1
        elif m.seq >= seq:
            return m
        else:
            since = m.seq
        rows = conn.execute(
            "SELECT id, vec FROM vectors WHERE namespace = ? AND kind = ? AND seq > ?"
            " ORDER BY seq, id",
            (namespace, kind, since),
        ).fetchall()
        if rows:
            data = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
            m.append([r[0] for r in rows], data.reshape(len(rows), -1))
        m.seq = seq
        return m
