"""The simple retrievers memvault's recall must never fall below (issue "Recall on real
conversations"), run on the same stored turns in the same evaluation: Okapi BM25 over the
turns' words, the embedder's cosine over the turns' stored vectors, and their reciprocal-rank
fusion (k = 60). They read every turn of a conversation; memvault reads as of the question's
time. Pure ranking over what the vault already holds: nothing is embedded again but the
questions."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np

WORD = re.compile(r"[a-z0-9]+")
SYSTEMS = ("bm25", "cosine", "rrf(bm25, cosine)")


class Bm25:
    """Okapi BM25 (k1 1.5, b 0.75, the idf of Lucene's: log(1 + (n − df + ½) / (df + ½)))
    over lower-cased letter-and-digit runs, postings built once for many queries."""

    def __init__(self, texts: Sequence[str], k1: float = 1.5, b: float = 0.75):
        docs = [WORD.findall(t.lower()) for t in texts]
        self.n, self.k1 = len(docs), k1
        lengths = np.array([len(d) for d in docs], dtype=np.float64)
        avg = float(lengths.mean()) if self.n and lengths.sum() else 1.0
        self.norm = k1 * (1 - b + b * lengths / avg)
        rows: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, doc in enumerate(docs):
            for term, tf in Counter(doc).items():
                rows[term].append((i, tf))
        self.postings = {
            term: (np.array([i for i, _ in p]), np.array([tf for _, tf in p], dtype=np.float64))
            for term, p in rows.items()
        }

    def scores(self, query: str) -> np.ndarray:
        out = np.zeros(self.n)
        for term in sorted(set(WORD.findall(query.lower()))):
            if term not in self.postings:
                continue
            at, tf = self.postings[term]
            df = len(at)
            idf = math.log(1 + (self.n - df + 0.5) / (df + 0.5))
            out[at] += idf * tf * (self.k1 + 1) / (tf + self.norm[at])
        return out

    def rank(self, query: str, k: int | None = None) -> list[int]:
        """Document indexes, best first (ties in document order); ``k``: at most that many."""
        order = np.argsort(-self.scores(query), kind="stable")
        return [int(i) for i in order[:k]]


def rrf(*rankings: Sequence[int], k: int = 60) -> list[int]:
    """Reciprocal-rank fusion: each ranking gives its r-th item 1 / (k + r)."""
    score: dict[int, float] = defaultdict(float)
    for ranking in rankings:
        for r, i in enumerate(ranking, start=1):
            score[i] += 1.0 / (k + r)
    return sorted(score, key=lambda i: -score[i])


def cosine_rank(matrix: np.ndarray, query: np.ndarray) -> list[int]:
    """Rows of ``matrix`` by cosine to ``query``, best first (rows without a vector are
    zero and come last)."""
    if not len(matrix):
        return []
    norms = np.linalg.norm(matrix, axis=1) * (float(np.linalg.norm(query)) or 1.0)
    cos = np.divide(matrix @ query, norms, out=np.full(len(matrix), -2.0), where=norms > 0)
    return [int(i) for i in np.argsort(-cos, kind="stable")]


class Turns:
    """One conversation as the baselines read it: each stored turn's text and vector, in the
    order they were said, under its turn id."""

    def __init__(self, ids: Sequence[str], texts: Sequence[str], matrix: np.ndarray):
        self.ids, self.matrix = list(ids), matrix
        self.bm25 = Bm25(texts)

    def ranked(self, query: str, query_vector: np.ndarray, k: int) -> dict[str, list[str]]:
        """Each baseline's top ``k`` distinct turn ids for one question."""
        bm = self.bm25.rank(query)
        cos = cosine_rank(self.matrix, query_vector)
        out = {}
        for name, order in zip(SYSTEMS, (bm, cos, rrf(bm, cos)), strict=True):
            out[name] = list(dict.fromkeys(self.ids[i] for i in order))[:k]
        return out
