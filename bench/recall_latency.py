"""Recall latency in one namespace of N episodes on the embedded store, and how much of
exact search the approximate vector index finds.

Setup writes N generated episodes straight through the store port (one batch per 5,000),
with random unit vectors: embedding 100k texts on a CPU would take most of an hour, and
random vectors are the hardest case for a graph index's speed. Queries are embedded for real
on every call, so the timings include query embedding. Baselines timed in the same run: a
bare numpy top-k over the same float32 matrix (without embedding, and with it), and memvault
with each of its large-namespace measures turned off (exact vectors; every query word in
keyword search), and memvault without freezing the collector after its first recall
(``recall.freeze_gc``; timed first, as a freeze lasts the process). p99 shows the pauses of
Python's full collections, which p95 of 200 recalls does not.

The index's recall against exact top-k is measured on real MiniLM embeddings: the turns of a
conversation file in the evaluation contract's format (``--turns``; by default LoCoMo's, when
it is beside the checkout) searched by its questions, through the store's own search.
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
from typing import Any

import numpy as np

from memvault import MemVault
from memvault.kg.model import Episode, content_hash
from memvault.kg.store import Batch, VectorRecord

LOCOMO = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "locomo"
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
        "p99_ms": round(float(np.percentile(a, 99)), 2),
    }


def timed_recalls(path: Path, queries: list[str], k: int, **settings: Any) -> dict[str, Any]:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    with MemVault.open(path, **settings) as vault:
        t = time.perf_counter()
        vault.recall(queries[0], namespace="bench", k=k, now=now)  # model, index, caches
        first = time.perf_counter() - t
        samples = []
        for q in queries:
            t = time.perf_counter()
            vault.recall(q, namespace="bench", k=k, now=now)
            samples.append(time.perf_counter() - t)
        mode = vault.store._vectors.mode("bench", "episode")  # type: ignore[attr-defined]
    return {**percentiles(samples), "first_recall_s": round(first, 2), "vector_search": mode}


def ann_recall(turns: Path, questions: Path, ks: tuple[int, ...]) -> dict[str, Any]:
    """Exact and approximate top-k through the store, on real embeddings of real turns."""
    from memvault.config import IndexSettings
    from memvault.embed import SentenceTransformerEmbedder
    from memvault.kg.sqlite import SQLiteStore

    texts = [json.loads(line)["text"] for line in turns.open() if line.strip()]
    texts = [t for t in texts if t.strip()]
    asks = [json.loads(line)["question"] for line in questions.open() if line.strip()]
    embed = SentenceTransformerEmbedder()
    t = time.perf_counter()
    vectors = embed.embed(texts)
    qvecs = embed.embed(asks)
    embed_s = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "real.db"
        approx = SQLiteStore(path, index=IndexSettings(ann_min_vectors=1))
        exact = SQLiteStore(path)
        eps = []
        for i, body in enumerate(texts):
            eps.append(
                Episode(
                    namespace="real",
                    content=body,
                    content_hash=content_hash("real", None, None, f"{i}:{body}"),
                    occurred_at=datetime(2024, 1, 1, tzinfo=UTC),
                    created_at=datetime(2024, 1, 1, tzinfo=UTC),
                )
            )
        records = [VectorRecord("episode", e.id, v) for e, v in zip(eps, vectors, strict=True)]
        approx.apply(Batch(namespace="real", episodes=eps, vectors=records))
        t = time.perf_counter()
        approx.vector_topk("real", "episode", qvecs[0], 1)
        build_s = time.perf_counter() - t
        out: dict[str, Any] = {
            "turns": len(texts),
            "questions": len(asks),
            "embedding_s": round(embed_s, 1),
            "index_build_s": round(build_s, 2),
        }
        for k in ks:
            found = sum(
                len(
                    {i for i, _ in approx.vector_topk("real", "episode", q, k)}
                    & {i for i, _ in exact.vector_topk("real", "episode", q, k)}
                )
                for q in qvecs
            )
            out[f"recall_at_{k}_vs_exact"] = round(found / (k * len(qvecs)), 4)
        approx.close()
        exact.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--turns", type=Path, default=LOCOMO / "turns.jsonl")
    parser.add_argument("--questions", type=Path, default=LOCOMO / "questions.jsonl")
    args = parser.parse_args()
    rng = random.Random(3)
    result: dict[str, Any] = {
        "benchmark": "recall_latency",
        "episodes": args.episodes,
        "queries": args.queries,
        "k": args.k,
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        with MemVault.open(path) as vault:
            embed = vault.c.embedder
            t = time.perf_counter()
            matrix = fill(vault, args.episodes, embed.dim, rng)
            result["embedder"] = embed.name
            result["setup_s"] = round(time.perf_counter() - t, 1)
        queries = [
            f"what did I say about {rng.choice(WORDS)} and {rng.choice(WORDS)}?"
            for _ in range(args.queries)
        ]
        numpy_only, numpy_embed = [], []
        embed.embed(queries[:1])
        for q in queries:
            t = time.perf_counter()
            v = embed.embed([q])[0]
            mid = time.perf_counter()
            scores = matrix @ v
            top = np.argpartition(-scores, args.k)[: args.k]
            top[np.argsort(-scores[top])]
            end = time.perf_counter()
            numpy_only.append(end - mid)
            numpy_embed.append(end - t)
        result["numpy_topk"] = percentiles(numpy_only)
        result["numpy_topk_with_embedding"] = percentiles(numpy_embed)
        never = 10**9
        # first: once a recall froze the process's objects (recall.freeze_gc), they stay so
        runs = {
            "memvault_gc_not_frozen": {"recall": {"freeze_gc": False}},
            "memvault_recall": {},
            "memvault_exact_vectors": {"index": {"ann_min_vectors": never}},
            "memvault_every_query_word": {"index": {"common_term_min_records": never}},
            "memvault_without_phrase_search": {"recall": {"phrase_words": 0}},
        }
        for name, settings in runs.items():
            result[name] = timed_recalls(path, queries, args.k, **settings)
        # a new process opens the saved index instead of building it
        result["memvault_recall_reopened"] = timed_recalls(path, queries, args.k)
    memvault = result["memvault_recall"]
    bare = result["numpy_topk_with_embedding"]
    result["ratio_p95_vs_numpy_with_embedding"] = round(memvault["p95_ms"] / bare["p95_ms"], 2)
    result["goal_p95_ms"] = 30
    if args.turns.exists() and args.questions.exists():
        result["ann_on_real_embeddings"] = ann_recall(args.turns, args.questions, (10, 100))
        result["ann_goal_recall_at_10"] = 0.98
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
