"""Reading a ChatGPT data export: the time and memory `memvault ingest conversations.json`
spends before the first write (reading the file, choosing the branch shown, building the
items), on a generated export shaped like a heavy user's (long assistant replies, an edited
message every few conversations). The writes after it are bench/ingest.py's.

    .venv/bin/python bench/chat_export.py --conversations 2000 --messages 30
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from memvault.interop.chat_exports import parse_export

WORDS = ("the plan for the trip needs a budget a list of stops and time to rest between long "
         "drives so we can see the coast and the old town without rushing").split()  # fmt: skip


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def export(conversations: int, messages: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for c in range(conversations):
        t0 = 1_690_000_000 + c * 3_600
        mapping: dict[str, Any] = {"root": {"id": "root", "message": None, "parent": None}}
        parent = "root"
        for m in range(messages):
            role = "user" if m % 2 == 0 else "assistant"
            key = f"c{c}m{m}"
            words = rng.randint(8, 40) if role == "user" else rng.randint(150, 400)
            mapping[key] = {
                "id": key,
                "parent": parent,
                "message": {
                    "id": key,
                    "author": {"role": role},
                    "create_time": t0 + 30 * m,
                    "content": {"content_type": "text", "parts": [_text(rng, words)]},
                    "recipient": "all",
                    "metadata": {},
                },
            }
            if role == "user" and rng.random() < 0.2:  # an edited message: a dead branch
                dead = f"{key}-edit"
                mapping[dead] = {**mapping[key], "id": dead}
            parent = key
        out.append({"title": f"Trip {c}", "create_time": t0, "conversation_id": f"conv-{c}",
                    "current_node": parent, "mapping": mapping})  # fmt: skip
    return out


def read(path: str) -> dict[str, Any]:
    """In a process of its own, so its peak memory is the read's alone."""
    started = time.perf_counter()
    with open(path, "rb") as fh:
        parsed = parse_export(fh.read(), "chatgpt")
    took = time.perf_counter() - started
    del parsed
    tracemalloc.start()  # a second read, traced (tracing slows it: not the one timed)
    with open(path, "rb") as fh:
        parsed = parse_export(fh.read(), "chatgpt")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "items": len(parsed.episodes),
        "problems": len(parsed.problems),
        "seconds": round(took, 2),
        "messages_per_s": round(len(parsed.episodes) / took),
        "python_peak_alloc_mb": round(peak / 1e6, 1),  # what the read allocated at its peak
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=30)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--read", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.read:
        json.dump(read(args.read), sys.stdout)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "conversations.json"
        path.write_text(json.dumps(export(args.conversations, args.messages, args.seed)))
        size = path.stat().st_size
        child = subprocess.run([sys.executable, __file__, "--read", str(path)],
                               capture_output=True, text=True, check=True)  # fmt: skip
    json.dump(
        {
            "benchmark": "chat_export_read",
            "conversations": args.conversations,
            "messages_per_conversation": args.messages,
            "export_mb": round(size / 1e6, 1),
            **json.loads(child.stdout),
        },
        sys.stdout,
        indent=2,
    )
    print()


if __name__ == "__main__":
    main()
