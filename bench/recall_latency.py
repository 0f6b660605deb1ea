"""Recall latency in one namespace of N episodes on the embedded store.

Setup writes N generated episodes straight through the store port (one batch per 5,000),
with random unit vectors: the dense top-k costs the same for any vectors, and embedding
100k texts on a CPU would take most of an hour. Queries are embedded for real on every
call, so the timings include query embedding. The baseline is a bare numpy top-k over the
same float32 matrix, timed in the same run (without embedding, and with it).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from memvault import MemVault
from memvault.kg.model import Episode, content_hash
from memvault.kg.store import Batch, VectorRecord

WORDS = (
    "garden hiking recipe meeting budget concert museum puppy guitar marathon camera "
    "vacation airport library coffee painting sister project deadline birthday wedding "
    "bakery festival kayak mountain river novel podcast yoga soccer chess theatre"
).split()


def text(rng: random.Random, i: int) -> str:
    # Zipf-like: a few words are common, most are rare, like real talk
    picks = [WORDS[min(int(rng.paretovariate(1.2)) - 1, len(WORDS) - 1)] for _ in range(8)]
    return f"I talked about {' and '.join(picks[:3])} while {' '.join(picks[3:])} ({i})"


def fill(vault: MemVault, n: int, dim: int, rng: random.Random) -> np.ndarray:
    nrng = np.random.default_rng(1)
    matrix = nrng.standard_normal((n, dim)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    for start in range(0, n, 5000):
        eps, vecs = [], []
        for i in range(start, min(n, start + 5000)):
            body = text(rng, i)
            e = Episode(
                namespace="bench",
                content=body,
                session_id=f"s{i // 30}",
                position=i % 30,
                content_hash=content_hash("bench", None, None, body),
                occurred_at=t0 + timedelta(minutes=i),
                created_at=t0,
            )
            eps.append(e)
            vecs.append(VectorRecord("episode", e.id, matrix[i]))
        vault.store.apply(Batch(namespace="bench", episodes=eps, vectors=vecs))
    return matrix


def percentiles(samples: list[float]) -> dict[str, float]:
    a = np.array(samples) * 1000
    return {
        "p50_ms": round(float(np.percentile(a, 50)), 2),
        "p95_ms": round(float(np.percentile(a, 95)), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()
    rng = random.Random(3)
    with tempfile.TemporaryDirectory() as tmp, MemVault.open(Path(tmp) / "bench.db") as vault:
        embed = vault.c.embedder
        t = time.perf_counter()
        matrix = fill(vault, args.episodes, embed.dim, rng)
        setup_s = time.perf_counter() - t
        queries = [
            f"what did I say about {rng.choice(WORDS)} and {rng.choice(WORDS)}?"
            for _ in range(args.queries)
        ]
        now = datetime(2026, 1, 1, tzinfo=UTC)
        vault.recall(queries[0], namespace="bench", k=args.k, now=now)  # load model + index
        full, numpy_only, numpy_embed = [], [], []
        for q in queries:
            t = time.perf_counter()
            vault.recall(q, namespace="bench", k=args.k, now=now)
            full.append(time.perf_counter() - t)
            t = time.perf_counter()
            v = embed.embed([q])[0]
            mid = time.perf_counter()
            scores = matrix @ v
            top = np.argpartition(-scores, args.k)[: args.k]
            top[np.argsort(-scores[top])]
            end = time.perf_counter()
            numpy_only.append(end - mid)
            numpy_embed.append(end - t)
    memvault = percentiles(full)
    bare = percentiles(numpy_only)
    bare_embed = percentiles(numpy_embed)
    result = {
        "benchmark": "recall_latency",
        "episodes": args.episodes,
        "queries": args.queries,
        "k": args.k,
        "embedder": embed.name,
        "setup_s": round(setup_s, 1),
        "memvault_recall": memvault,
        "numpy_topk": bare,
        "numpy_topk_with_embedding": bare_embed,
        "ratio_p50_vs_numpy_with_embedding": round(memvault["p50_ms"] / bare_embed["p50_ms"], 2),
        "ratio_p95_vs_numpy_with_embedding": round(memvault["p95_ms"] / bare_embed["p95_ms"], 2),
        "goal_p95_ms": 30,
    }
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
