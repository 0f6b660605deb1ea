"""Ingest throughput with real embeddings, and the share of time spent beyond embedding.

Turns are generated here (a small made-up vocabulary of everyday talk, with first-person
statements so the rule extractor has work), written through the real write path in
batches; the embedder is wrapped to time its share.
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

from memvault import MemVault

PEOPLE = ["Ana", "Bo", "Chen", "Dara", "Eli", "Farah", "Gus", "Hana"]
PLACES = ["Lisbon", "Oslo", "Kyoto", "Austin", "Nairobi", "Lima", "Hanoi", "Turin"]
THINGS = [
    "pottery",
    "trail running",
    "sourdough",
    "chess",
    "jazz piano",
    "birdwatching",
    "the new project",
    "a vintage camera",
    "the book club",
    "sea kayaking",
]
TEMPLATES = [
    "I live in {place} now and I love it.",
    "My manager is {person} since last spring.",
    "I prefer {thing} over most weekend plans.",
    "We talked about {thing} with {person}.",
    "Yesterday {person} showed me photos from {place}.",
    "I started {thing} a month ago.",
    "Do you remember what {person} said about {thing}?",
    "The trip to {place} was amazing!",
]


def turns(n: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    out = []
    for i in range(n):
        text = rng.choice(TEMPLATES).format(
            person=rng.choice(PEOPLE), place=rng.choice(PLACES), thing=rng.choice(THINGS)
        )
        out.append(
            {
                "content": f"{text} ({i})",
                "speaker": rng.choice(PEOPLE[:2]),
                "session_id": f"s{i // 25}",
                "occurred_at": start + timedelta(hours=i),
            }
        )
    return out


class Timed:
    def __init__(self, inner):  # type: ignore[no-untyped-def]
        self.inner, self.name, self.dim, self.seconds = inner, inner.name, inner.dim, 0.0

    def embed(self, texts):  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()
    items = turns(args.episodes)
    with tempfile.TemporaryDirectory() as tmp:
        probe = MemVault.open(Path(tmp) / "probe.db")
        timed = Timed(probe.c.embedder)
        probe.close()
        timed.embed(["warm up the model"])
        timed.seconds = 0.0
        with MemVault.open(Path(tmp) / "bench.db", embedder=timed) as vault:
            t = time.perf_counter()
            for s in range(0, len(items), args.batch):
                vault.write_many(items[s : s + args.batch], namespace="bench")
            total = time.perf_counter() - t
            stats = vault.stats(namespace="bench")
    result = {
        "benchmark": "ingest",
        "episodes": args.episodes,
        "batch": args.batch,
        "embedder": timed.name,
        "total_s": round(total, 2),
        "embedding_s": round(timed.seconds, 2),
        "episodes_per_s": round(args.episodes / total, 1),
        "beyond_embedding_share": round((total - timed.seconds) / total, 4),
        "goal_beyond_embedding_share": 0.15,
        "facts": stats["facts"],
        "entities": stats["entities"],
    }
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
