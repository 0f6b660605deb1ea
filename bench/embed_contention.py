"""One question's embedding on a busy CPU: ONNX Runtime's worker threads spinning between runs
(its default) against sleeping (memvault's setting), timed quiet and with busy processes
beside it (``--busy``, one per core by default), alternated in one run; and batch
throughput both ways. Recall embeds one question at a time, so this is the part of recall's
latency that contention moves most.

    .venv/bin/python bench/embed_contention.py --queries 300 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from memvault.embed.onnx import OnnxEmbedder

QUESTIONS = [
    "What did Ana say about the cello lessons?",
    "Where does Maya live now?",
    "Which book did you recommend to me last week?",
    "How many times did I go hiking in March?",
]


def timed(embedder: OnnxEmbedder, n: int) -> dict[str, float]:
    for q in QUESTIONS:
        embedder.embed([q])
    ms = []
    for i in range(n):
        started = time.perf_counter()
        embedder.embed([QUESTIONS[i % len(QUESTIONS)]])
        ms.append((time.perf_counter() - started) * 1000)
    return {"p50_ms": round(float(np.percentile(ms, 50)), 2),
            "p95_ms": round(float(np.percentile(ms, 95)), 2)}  # fmt: skip


def throughput(embedder: OnnxEmbedder, texts: list[str]) -> float:
    embedder.embed(texts[:16])
    started = time.perf_counter()
    embedder.embed(texts)
    return round(len(texts) / (time.perf_counter() - started), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--busy", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        models = Path.home() / ".memvault" / "models"
        cache = models if models.exists() else Path(tmp)
        variants = {"spinning": OnnxEmbedder(cache, device="cpu", spin=True),
                    "sleeping (shipped)": OnnxEmbedder(cache, device="cpu")}  # fmt: skip
        long = [" ".join(["the garden needs water before the concert"] * 40)] * 96
        out: dict = {"benchmark": "embed_contention", "cores": os.cpu_count(),
                     "busy_processes": args.busy, "rounds": []}  # fmt: skip
        for r in range(args.rounds):
            row: dict = {"round": r}
            for name, e in variants.items():
                row[f"{name}: quiet"] = timed(e, args.queries)
            hogs = [
                subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(args.busy)
            ]
            try:
                for name, e in variants.items():
                    row[f"{name}: busy"] = timed(e, args.queries)
            finally:
                for h in hogs:
                    h.kill()
            for name, e in variants.items():
                row[f"{name}: long texts/s"] = throughput(e, long)
            out["rounds"].append(row)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
