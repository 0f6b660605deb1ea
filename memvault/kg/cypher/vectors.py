"""Vectors of the Cypher store: packed as base64 float32 strings (a list property of floats
costs ~10 µs a number to parse on the way back over RESP or Bolt; a string, one copy), and
searched exactly in memory from a matrix kept current by the ``vseq`` feed."""

from __future__ import annotations

import base64

import numpy as np


def pack(vector: np.ndarray) -> str:
    return base64.b64encode(np.asarray(vector, dtype=np.float32).tobytes()).decode("ascii")


def unpack(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=np.float32).copy()


class Matrix:
    """Unit vectors of one (namespace, kind), kept current from the ``vseq`` feed."""

    def __init__(self) -> None:
        self.seq = -1
        self.rows: dict[str, np.ndarray] = {}
        self._stack: tuple[list[str], np.ndarray] | None = None

    def apply(self, upserts: list[tuple[int, str, str]], deletes: list[tuple[int, str]]) -> None:
        events = [(s, 0, i, None) for s, i in deletes] + [(s, 1, i, v) for s, i, v in upserts]
        for _, op, rid, vec in sorted(events, key=lambda e: (e[0], e[1], e[2])):
            self.rows.pop(rid, None)  # a replaced vector moves last: ties go by write order
            if op == 1:
                self.rows[rid] = unpack(vec or "")
        if events:
            self._stack = None

    def stack(self) -> tuple[list[str], np.ndarray]:
        if self._stack is None:
            ids = list(self.rows)
            data = np.stack([self.rows[i] for i in ids]) if ids else np.zeros((0, 0), np.float32)
            self._stack = (ids, data)
        return self._stack
