"""Deterministic embedder for tests: a text's vector is seeded by its hash, unless pinned.

Pinning (``FakeEmbedder(pinned={"cats": v})``) lets a test decide which texts are close.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import numpy as np

from memvault.embed.port import normalise_rows


class FakeEmbedder:
    def __init__(self, dim: int = 16, pinned: Mapping[str, Sequence[float]] | None = None):
        self.dim = dim
        self.name = f"fake-{dim}"
        self.pinned = {k: np.asarray(v, dtype=np.float32) for k, v in (pinned or {}).items()}
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        rows: list[np.ndarray] = []
        for text in texts:
            if text in self.pinned:
                rows.append(self.pinned[text])
                continue
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            rows.append(np.random.default_rng(seed).standard_normal(self.dim))
        return normalise_rows(np.array(rows, dtype=np.float32).reshape(len(texts), self.dim))
