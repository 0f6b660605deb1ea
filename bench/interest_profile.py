"""The interest profile on a generated 120-day activity stream with planted shifts: 8
entities steady throughout, 4 rising (rare before, frequent in the last week), 4 cooling
(frequent until day 60, never since), and recalls asking after some of them. Precision and
recall of the profile's rising and cooling lists against the plan, and the profile's cost.

    .venv/bin/python bench/interest_profile.py [--days 120] [--per-day 12] [--seed 11]
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

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder

NAMES = ("Ana Berta Carla Dario Elena Fabio Greta Hugo Ines Jonas Karla Luis Marta Nuno "
         "Olga Pedro").split()  # fmt: skip


def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    names = NAMES[:]
    rng.shuffle(names)
    steady, rising, cooling = names[:8], names[8:12], names[12:16]
    end = datetime(2026, 5, 1, tzinfo=UTC)
    start = end - timedelta(days=args.days)
    with tempfile.TemporaryDirectory() as tmp:
        vault = MemVault.open(Path(tmp) / "v.db", embedder=HashingEmbedder(), clock=FixedClock(end))
        for day in range(args.days):
            pool = list(steady)
            if day < 60:
                pool += cooling * 2
            if day >= args.days - 7:
                pool += rising * 3
            elif rng.random() < 0.05:
                pool.append(rng.choice(rising))  # now and then before the rise
            items = [
                {"content": f"I spent slot {i} of day {day} with {rng.choice(pool)} on the plan.",
                 "speaker": "Maya", "occurred_at": start + timedelta(days=day, minutes=10 * i)}
                for i in range(args.per_day)
            ]  # fmt: skip
            vault.write_many(items, now=start + timedelta(days=day))
            if day >= args.days - 7 and day % 2 == 0:
                vault.recall(f"What did {rng.choice(rising)} say?", now=start + timedelta(days=day))
        started = time.perf_counter()
        p = vault.profile(now=end)
        took = time.perf_counter() - started
        vault.close()

    def pr(got: list[str], want: list[str]) -> dict[str, float]:
        hit = len(set(got) & set(want))
        return {"precision": round(hit / max(len(got), 1), 3), "recall": round(hit / len(want), 3)}

    return {
        "days": args.days,
        "writes": args.days * args.per_day,
        "rising": pr(p["rising"], rising),
        "cooling": pr(p["cooling"], cooling),
        "profile_s": round(took, 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--days", type=int, default=120)
    ap.add_argument("--per-day", type=int, default=12)
    ap.add_argument("--seed", type=int, default=11)
    json.dump(run(ap.parse_args()), sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
