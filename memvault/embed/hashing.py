"""FALLBACK embedder for machines without torch: signed feature hashing.

Words and adjacent word pairs are hashed into ``dim`` buckets with a sign, then the row is
normalised. Texts that share words land close; synonyms do not. Recall quality is that of
a keyword index, which is why it is a labelled fallback and never chosen silently when the
real model is installed.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Sequence

import numpy as np

from memvault.embed.port import normalise_rows

_WORD = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    fallback = True
    lexical = True  # its vectors know words, not meaning (memvault.embed.port.lexical)

    def __init__(self, dim: int = 384):
        self.dim = dim
        self.name = f"hashing-{dim} (fallback)"

    def _bucket(self, token: str) -> tuple[int, float]:
        digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        return value % self.dim, 1.0 if (value >> 63) & 1 else -1.0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            grams = words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
            for gram in grams:
                index, sign = self._bucket(gram)
                out[row, index] += sign
        return normalise_rows(out)
