"""MCP ``recall`` round trip over stdio against the in-process SDK call, in the same run.

A vault of ``--episodes`` generated turns (the temporal set's people and phrasings); the same
``--queries`` questions are asked through ``vault.recall`` in this process and through the
official MCP client talking to a ``memvault mcp`` process over stdio (JSON-RPC, the result
serialised as JSON). Prints p50 / p95 of each and the difference: what the protocol costs.

    .venv/bin/python bench/mcp_roundtrip.py [--episodes 2000] [--queries 200] [--embedder hashing]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from temporal_data import generate

from memvault import MemVault
from memvault.embed import HashingEmbedder


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return round(xs[min(int(q * len(xs)), len(xs) - 1)] * 1000, 2)


def run(args: argparse.Namespace) -> dict[str, Any]:
    turns, questions = generate(max(args.episodes // 200, 1), 7)
    turns = turns[: args.episodes]
    queries = [q["question"] for q in questions][: args.queries]
    queries = (queries * (args.queries // max(len(queries), 1) + 1))[: args.queries]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "v.db"
        kw: dict[str, Any] = {"embedder": HashingEmbedder()} if args.embedder == "hashing" else {}
        with MemVault.open(db, **kw) as vault:
            items = [{"content": t["text"], "speaker": t.get("speaker")} for t in turns]
            for start in range(0, len(items), 500):
                vault.write_many(items[start : start + 500], namespace="bench")
            inproc = []
            for q in queries:
                started = time.perf_counter()
                vault.recall(q, namespace="bench", k=10)
                inproc.append(time.perf_counter() - started)
        env = {**os.environ, "MEMVAULT_DB_PATH": str(db), "HF_HUB_OFFLINE": "1"}
        if args.embedder == "hashing":
            env["MEMVAULT_EMBEDDER"] = "hashing"
        memvault = str(Path(sys.executable).parent / "memvault")
        params = StdioServerParameters(command=memvault, args=["mcp", "-n", "bench"], env=env)
        over: list[float] = []

        async def session() -> None:
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                await s.call_tool("recall", {"query": queries[0]})  # warm: models, indexes
                for q in queries:
                    started = time.perf_counter()
                    result = await s.call_tool("recall", {"query": q, "k": 10})
                    over.append(time.perf_counter() - started)
                    assert not result.isError

        asyncio.run(session())
    return {
        "episodes": len(turns),
        "queries": len(queries),
        "embedder": args.embedder,
        "in_process_ms": {"p50": pct(inproc, 0.5), "p95": pct(inproc, 0.95)},
        "mcp_stdio_ms": {"p50": pct(over, 0.5), "p95": pct(over, 0.95)},
        "protocol_overhead_p50_ms": round(
            (statistics.median(over) - statistics.median(inproc)) * 1000, 2
        ),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=2000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--embedder", choices=["hashing", "default"], default="default")
    print(json.dumps(run(ap.parse_args()), indent=2))


if __name__ == "__main__":
    main()
