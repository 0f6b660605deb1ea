"""Primer tokens and the raw-to-primer ratio at growing history sizes.

For each size, a generated history (the temporal-update generator's people, phrasings and
small talk, written straight through the store port with their write times, types assigned
by a fixed rule) is folded offline (extractive digests), and the primer is built with the
default budget. The primer must stay flat (≤ 2,000 tokens at every size, counted by
memvault.language.tokens) while the history it covers grows; its build time is O(types).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from temporal_data import generate

from memvault import MemVault
from memvault.embed import HashingEmbedder
from memvault.kg.model import Episode, MemoryType, content_hash
from memvault.kg.store import Batch

TYPES = [MemoryType.EPISODIC] * 6 + [MemoryType.USER, MemoryType.PROJECT, MemoryType.FEEDBACK]
TYPES += [MemoryType.REFERENCE]


def turns(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    seed = 1
    while len(out) < n:
        out += generate(40, seed)[0]
        seed += 1
    return out[:n]


def one(n: int) -> dict[str, Any]:
    rows = turns(n)
    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "p.db"
        with MemVault.open(path, embedder=HashingEmbedder()) as vault:
            for start in range(0, n, 5000):
                eps = []
                for i, r in enumerate(rows[start : start + 5000], start=start):
                    at = t0 + timedelta(minutes=10 * i)
                    eps.append(
                        Episode(
                            namespace="bench",
                            content=r["text"],
                            speaker=r["speaker"],
                            type=TYPES[i % len(TYPES)],
                            content_hash=content_hash("bench", None, None, f"{i}:{r['text']}"),
                            occurred_at=at,
                            created_at=at,
                        )
                    )
                vault.store.apply(Batch(namespace="bench", episodes=eps))
            t = time.perf_counter()
            report = vault.fold(namespace="bench", apply=True)
            fold_s = time.perf_counter() - t
            t = time.perf_counter()
            block = vault.primer(namespace="bench")
            primer_ms = (time.perf_counter() - t) * 1000
            second = vault.fold(namespace="bench", apply=True)
    return {
        "episodes": n,
        "raw_tokens": block.raw_tokens,
        "tokenizer": block.to_dict()["tokenizer"],
        "primer_tokens": block.tokens,
        "budget_tokens": block.budget_tokens,
        "ratio": block.ratio,
        "clipped": block.clipped,
        "fold_calls": report.calls,
        "fold_s": round(fold_s, 1),
        "second_fold_calls": second.calls,
        "primer_build_ms": round(primer_ms, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    args = parser.parse_args()
    results = [one(n) for n in args.sizes]
    flat = all(r["primer_tokens"] <= 2000 for r in results)
    out = {"benchmark": "primer", "offline_fold": "extractive", "sizes": results, "flat": flat}
    json.dump(out, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
