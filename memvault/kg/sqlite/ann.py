"""Approximate nearest neighbours (usearch HNSW) over one namespace's vectors of one kind.

Keys are the ``vectors`` table's rowids: a record keeps its rowid while it exists (an update
of its vector keeps it too), so an index one process saved is valid in another. Three ways
the index stays consistent with the table:

- **catch up** (in process): rows whose ``seq`` is newer than the index's, and the
  ``deletions`` logged since, are applied in that order (a record deleted and written again
  ends present, one written and deleted ends absent);
- **reconcile** (on load from a saved file): keys the table no longer holds, or holds with a
  newer ``seq``, are removed and the newer rows added; a sample of the rest is compared with
  the table, and any difference discards the file (it belonged to another database);
- **save**: written to a temporary file and renamed, its name carrying the ``seq`` it
  reflects, so a reader never sees half a file.

Vectors are stored as float32, so the returned scores are exact cosines of the ids found;
only which ids are found is approximate (measured in ``bench/recall_latency.py``).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import logging
import os
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np

from memvault.errors import StoreError

log = logging.getLogger(__name__)

SAMPLE = 16  # rows compared with the table when a saved index is loaded
EXACT_BELOW = 1024  # so few rows are scanned whole (from the index's own copy), not walked


def available() -> bool:
    return importlib.util.find_spec("usearch") is not None


def _index_class() -> Any:
    """usearch's ``Index``, with ONNX Runtime loaded first when it is installed: loaded after
    usearch 2.26, ONNX Runtime 1.32 crashes the process in libstdc++ (a segfault on import:
    ``python -c "import usearch.index; import onnxruntime"``), and the ONNX embedder loads it
    lazily, e.g. in a worker that searched stored vectors before embedding anything."""
    if importlib.util.find_spec("onnxruntime") is not None:
        import onnxruntime  # noqa: F401

    from usearch.index import Index

    return Index


class Ann:
    def __init__(
        self,
        namespace: str,
        kind: str,
        dim: int,
        *,
        connectivity: int = 16,
        expansion_add: int = 64,
        expansion_search: int = 128,
        directory: Path | None = None,
    ):
        Index = _index_class()
        self.namespace, self.kind, self.dim = namespace, kind, dim
        self.expansion_search = expansion_search
        self.directory = directory
        self.seq = -1
        self.saved_seq = -1
        self.unsaved = 0
        self.ids: dict[int, str] = {}  # key (rowid) -> record id
        self.keys: dict[str, int] = {}
        self.index: Any = Index(
            ndim=dim,
            metric="ip",
            dtype="f32",
            connectivity=connectivity,
            expansion_add=expansion_add,
            expansion_search=expansion_search,
        )

    def __len__(self) -> int:
        return len(self.ids)

    # -- search ---------------------------------------------------------------------------
    def search(self, query: np.ndarray, k: int) -> list[tuple[str, float]]:
        if not self.ids or k <= 0:
            return []
        self.index.expansion_search = max(self.expansion_search, k)
        exact = len(self.ids) < EXACT_BELOW
        found = self.index.search(query, min(k, len(self.ids)), threads=1, exact=exact)
        return [
            (self.ids[int(key)], 1.0 - float(dist))
            for key, dist in zip(found.keys, found.distances, strict=True)
            if int(key) in self.ids
        ]

    def vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those ``ids`` the index holds (exact float32 copies)."""
        known = [i for i in ids if i in self.keys]
        if not known:
            return {}
        found = self.index.get(np.asarray([self.keys[i] for i in known], dtype=np.uint64))
        return {i: v for i, v in zip(known, found, strict=True) if v is not None}

    # -- keeping up with the table --------------------------------------------------------
    def build(self, conn: sqlite3.Connection, seq: int) -> None:
        """Every row of the table (``seq`` read with it, in the same transaction)."""
        self._add_rows(conn, since=-1)
        self.seq = seq
        self.save()

    def catch_up(self, conn: sqlite3.Connection, seq: int) -> None:
        if seq <= self.seq:
            return
        gone = conn.execute(
            "SELECT id FROM deletions WHERE namespace = ? AND kind = ? AND seq > ?",
            (self.namespace, self.kind, self.seq),
        ).fetchall()
        self._remove([r[0] for r in gone])
        changed = self._add_rows(conn, since=self.seq)
        self.seq = seq
        self.unsaved += len(gone) + changed
        if self.unsaved >= max(1000, len(self.ids) // 20):
            self.save()

    def _add_rows(self, conn: sqlite3.Connection, *, since: int) -> int:
        cursor = conn.execute(
            "SELECT rowid, id, vec FROM vectors WHERE namespace = ? AND kind = ? AND seq > ?",
            (self.namespace, self.kind, since),
        )
        added = 0
        while rows := cursor.fetchmany(10_000):
            data = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32)
            if data.size != len(rows) * self.dim:
                raise StoreError(
                    f"vectors of another dimension than {self.dim} in one index: re-embed the "
                    "namespace with one embedder (export, then import)"
                )
            keys, ids = [int(r[0]) for r in rows], [r[1] for r in rows]
            self._upsert(keys, ids, data.reshape(-1, self.dim))
            added += len(rows)
        return added

    def _upsert(self, keys: list[int], ids: list[str], rows: np.ndarray) -> None:
        stale = {self.keys[i] for i in ids if i in self.keys} | {k for k in keys if k in self.ids}
        self._remove_keys(stale)
        self.index.add(np.asarray(keys, dtype=np.uint64), rows, threads=os.cpu_count() or 1)
        self.ids.update(zip(keys, ids, strict=True))
        self.keys.update(zip(ids, keys, strict=True))

    def _remove(self, ids: list[str]) -> None:
        self._remove_keys({self.keys[i] for i in ids if i in self.keys})

    def _remove_keys(self, keys: set[int]) -> None:
        for key in keys:
            self.index.remove(key)
            record = self.ids.pop(key)
            if self.keys.get(record) == key:
                del self.keys[record]

    # -- persistence ----------------------------------------------------------------------
    def _stem(self) -> str:
        digest = hashlib.sha1(self.namespace.encode()).hexdigest()[:16]
        return f"{digest}-{self.kind}-"

    def save(self) -> None:
        if self.directory is None or self.seq == self.saved_seq:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            final = self.directory / f"{self._stem()}{self.seq}.usearch"
            tmp = final.with_suffix(f".tmp{os.getpid()}")
            self.index.save(str(tmp))
            os.replace(tmp, final)
            for seq, old in self._saved():
                if seq < self.seq:  # a newer one another process saved stays
                    with contextlib.suppress(OSError):
                        old.unlink()
        except OSError as exc:  # a cache: recall works without it, the next process rebuilds
            log.warning("could not save the vector index in %s: %s", self.directory, exc)
            return
        self.saved_seq, self.unsaved = self.seq, 0

    def _saved(self) -> list[tuple[int, Path]]:
        """Saved files of this index, oldest first, by the seq in their names."""
        if self.directory is None or not self.directory.is_dir():
            return []
        found = []
        for p in self.directory.glob(f"{self._stem()}*.usearch"):
            tail = p.stem.rsplit("-", 1)[1]
            if tail.isdigit():
                found.append((int(tail), p))
        return sorted(found)

    def load(self, conn: sqlite3.Connection, seq: int) -> bool:
        """Restore the newest saved index no newer than the table and reconcile it with the
        table; False when there is none or it does not belong to this table."""
        if self.directory is None:
            return False
        usable = [(s, p) for s, p in self._saved() if s <= seq]
        if not usable:
            return False
        saved_seq, path = usable[-1]
        try:
            self.index.load(str(path))
        except (OSError, RuntimeError, ValueError) as exc:
            log.warning("ignoring the saved vector index %s: %s", path, exc)
            return False
        if self.index.ndim != self.dim:
            return False
        table = {
            int(r[0]): (r[1], int(r[2]))
            for r in conn.execute(
                "SELECT rowid, id, seq FROM vectors WHERE namespace = ? AND kind = ?",
                (self.namespace, self.kind),
            )
        }
        present = np.asarray(self.index.keys).astype(np.int64).tolist()  # one call, not n
        kept = [k for k in present if k in table and table[k][1] <= saved_seq]
        older = sum(1 for _, s in table.values() if s <= saved_seq)
        if older != len(kept) or not self._matches(conn, kept):
            log.warning("the saved vector index %s is not this database's: rebuilding", path)
            return False
        for key in set(present) - set(kept):
            self.index.remove(key)
        self.ids = {k: table[k][0] for k in kept}
        self.keys = {i: k for k, i in self.ids.items()}
        self.seq = self.saved_seq = saved_seq
        self._add_rows(conn, since=saved_seq)
        self.seq = seq
        return True

    def _matches(self, conn: sqlite3.Connection, keys: list[int]) -> bool:
        if not keys:
            return True
        rng = np.random.default_rng(len(keys))
        sample = [int(k) for k in rng.choice(keys, size=min(SAMPLE, len(keys)), replace=False)]
        for key in sample:
            row = conn.execute(
                "SELECT vec FROM vectors WHERE rowid = ? AND namespace = ? AND kind = ?",
                (key, self.namespace, self.kind),
            ).fetchone()
            stored = self.index.get(key)
            if row is None or stored is None:
                return False
            if not np.allclose(np.frombuffer(row[0], dtype=np.float32), stored, atol=1e-6):
                return False
        return True
