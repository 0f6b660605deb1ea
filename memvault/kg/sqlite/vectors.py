"""Vector search over one namespace's vectors of one kind: exact over a matrix held in
memory while the namespace is small, approximate (``ann.Ann``, usearch HNSW) from
``ann_min_vectors`` rows on.

Both stay correct after writes, including other processes' writes: before each search the
cache compares its seq with the table's ``vector_state`` row. For the matrix, a higher seq
with the same gen means rows were only added, so just those rows are appended, and a new gen
(a vector replaced or removed) reloads; the approximate index applies the rows and deletions
newer than its seq instead (see ``ann``), so a 100k-row namespace is never reloaded whole.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from memvault.errors import InvalidInputError, StoreError
from memvault.kg.sqlite import ann

log = logging.getLogger(__name__)


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
    """``vector`` scaled to norm 1; one already of norm 1 (to float32's precision) is kept as
    it is, so a vector read back and written again stays byte-identical (a dump round trip)."""
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 and abs(norm - 1.0) > 1e-6 else v


@dataclass(frozen=True)
class AnnOptions:
    min_vectors: int = 20_000  # from this many rows on, search is approximate
    connectivity: int = 16
    expansion_add: int = 64
    expansion_search: int = 128
    directory: Path | None = None  # where built indexes are saved for the next process


class VectorCache:
    def __init__(self, options: AnnOptions | None = None) -> None:
        self.options = options or AnnOptions()
        self._matrices: dict[tuple[str, str], _Matrix] = {}
        self._anns: dict[tuple[str, str], ann.Ann] = {}
        self._ann_ok = ann.available()
        if not self._ann_ok:
            log.warning("usearch is not installed: vector search stays exact at every size")

    def clear(self) -> None:
        self._matrices.clear()
        self._anns.clear()

    def save(self) -> None:
        for index in self._anns.values():
            index.save()

    def mode(self, namespace: str, kind: str) -> str:
        """``approximate`` or ``exact``: how the last search of this index ran."""
        return "approximate" if (namespace, kind) in self._anns else "exact"

    def topk(
        self, conn: sqlite3.Connection, namespace: str, kind: str, query: np.ndarray, k: int
    ) -> list[tuple[str, float]]:
        q = unit(query)
        gen, seq = _state(conn, namespace, kind)  # read once per search, for either path
        index = self._ann(conn, namespace, kind, q.shape[0], seq)
        if index is not None:
            self._check_dim(q, index.dim)
            return index.search(q, k)
        m = self._fresh(conn, namespace, kind, gen, seq)
        if m.n == 0 or k <= 0:
            return []
        self._check_dim(q, m.data.shape[1])
        scores = m.data[: m.n] @ q
        if k >= m.n:
            order = np.argsort(-scores)
        else:
            top = np.argpartition(-scores, k)[:k]
            order = top[np.argsort(-scores[top])]
        return [(m.ids[i], float(scores[i])) for i in order]

    def held(
        self, conn: sqlite3.Connection, namespace: str, kind: str, ids: list[str]
    ) -> dict[str, np.ndarray]:
        """Vectors of ``ids`` from the approximate index when one is open (caught up with
        the table first), sparing a read of the table; {} without one."""
        index = self._anns.get((namespace, kind))
        if index is None or not ids:
            return {}
        index.catch_up(conn, _state(conn, namespace, kind)[1])
        return index.vectors(ids)

    def prepare(self, conn: sqlite3.Connection, namespace: str, kind: str) -> str:
        """Build (or load and catch up) the approximate index now and save it, so the first
        recall after a namespace grew past ``min_vectors`` does not pay for it: ``approximate``
        when there is one, else ``exact``."""
        _, seq = _state(conn, namespace, kind)
        index = self._ann(conn, namespace, kind, 0, seq)
        if index is None:
            return "exact"
        index.save()
        return "approximate"

    @staticmethod
    def _check_dim(q: np.ndarray, dim: int) -> None:
        if q.shape[0] != dim:
            raise InvalidInputError(
                f"query vector has {q.shape[0]} dimensions, the index has {dim}",
                field="query",
                hint="recall with the embedder the namespace was written with",
            )

    def _ann(
        self, conn: sqlite3.Connection, namespace: str, kind: str, dim: int, seq: int
    ) -> ann.Ann | None:
        """The approximate index, caught up with the table, once the namespace is large
        enough (or one was saved for it); None while exact search is the right tool."""
        key = (namespace, kind)
        index = self._anns.get(key)
        if index is not None:
            index.catch_up(conn, seq)
            return index
        if not self._ann_ok:
            return None
        m = self._matrices.get(key)
        if m is not None and m.n < self.options.min_vectors and m.seq >= seq:
            return None  # small and current: skip the count
        (rows,) = conn.execute(
            "SELECT count(*) FROM vectors WHERE namespace = ? AND kind = ?", (namespace, kind)
        ).fetchone()
        if rows < self.options.min_vectors:
            return None
        first = conn.execute(
            "SELECT length(vec) FROM vectors WHERE namespace = ? AND kind = ? LIMIT 1",
            (namespace, kind),
        ).fetchone()
        dim = int(first[0]) // 4 if first else dim
        index = self._new_ann(namespace, kind, dim)
        if not index.load(conn, seq):
            log.info("building the vector index of %s/%s (%d rows), once", namespace, kind, rows)
            index = self._new_ann(namespace, kind, dim)
            index.build(conn, seq)
        self._anns[key] = index
        self._matrices.pop(key, None)
        return index

    def _new_ann(self, namespace: str, kind: str, dim: int) -> ann.Ann:
        o = self.options
        return ann.Ann(
            namespace,
            kind,
            dim,
            connectivity=o.connectivity,
            expansion_add=o.expansion_add,
            expansion_search=o.expansion_search,
            directory=o.directory,
        )

    def _fresh(
        self, conn: sqlite3.Connection, namespace: str, kind: str, gen: int, seq: int
    ) -> _Matrix:
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


def _state(conn: sqlite3.Connection, namespace: str, kind: str) -> tuple[int, int]:
    row = conn.execute(
        "SELECT gen, seq FROM vector_state WHERE namespace = ? AND kind = ?", (namespace, kind)
    ).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)
