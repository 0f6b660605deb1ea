"""The embedding port: texts in, unit-normalised float32 rows out, in batches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    name: str  # recorded with exports so vectors are only reused by the same model

    @property
    def dim(self) -> int:
        """The vectors' dimension (a model may be read to know it)."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An array of shape (len(texts), dim), float32, each row of norm 1 (or 0)."""
        ...


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    m = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return m / norms
