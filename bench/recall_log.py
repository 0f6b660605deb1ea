"""What the recall log costs a recall: the same queries on the same vault with
``recall.log`` off and on, interleaved in one run, p50 / p95 of each and of the log's own
work (one quiet document write and the gap lookup) as the vault does it (not waiting for the
disk: ``Batch.durable`` false) and, for comparison, as a durable write.

    .venv/bin/python bench/recall_log.py [--episodes 5000] [--queries 400]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memvault import MemVault
from memvault.embed import HashingEmbedder
from memvault.kg.store import Batch
from memvault.profile import recall_log


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return round(xs[min(int(q * len(xs)), len(xs) - 1)] * 1000, 3)


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "v.db"
        with MemVault.open(db, embedder=HashingEmbedder()) as vault:
            items = [
                {"content": f"note {i} on topic {i % 97} with Maya"} for i in range(args.episodes)
            ]
            for start in range(0, len(items), 1000):
                vault.write_many(items[start : start + 1000])
        off = MemVault.open(db, embedder=HashingEmbedder(), recall={"log": False})
        on = MemVault.open(db, embedder=HashingEmbedder(), recall={"log": True})
        timings: dict[str, list[float]] = {
            "off": [],
            "on": [],
            "log_only": [],
            "log_only_durable": [],
        }
        for i in range(args.queries):
            q = f"what about topic {i % 97} and Maya"
            for name, vault in (("off", off), ("on", on)) if i % 2 else (("on", on), ("off", off)):
                started = time.perf_counter()
                vault.recall(q)
                timings[name].append(time.perf_counter() - started)
            for name, durable in (("log_only", False), ("log_only_durable", True)):
                started = time.perf_counter()
                doc = recall_log.log_doc(f"b{i}{name}", q, ["x"], on.now())
                batch = Batch(namespace="default", docs=[doc], quiet=True, durable=durable)
                on.store.apply(batch)
                recall_log.hint(on.store, "default", q)
                timings[name].append(time.perf_counter() - started)
        off.close()
        on.close()
    return {
        "episodes": args.episodes,
        "queries": args.queries,
        **{k: {"p50_ms": pct(v, 0.5), "p95_ms": pct(v, 0.95)} for k, v in timings.items()},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=5000)
    ap.add_argument("--queries", type=int, default=400)
    json.dump(run(ap.parse_args()), sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
