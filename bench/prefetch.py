"""Prefetch: cache hit rate and recall latency saved, beside the same recalls without it, in
the same run.

Two replays:

- ``agent`` (generated, seeded): an agent writes each user turn of a session (the turn names a
  person or a project), runs the prefetch job as the server would after a write, then asks
  what it knows about what the turn named, in the namespace's usual shape ("What do I know
  about Lena?"), and every fifth turn a standing question ("What are my current projects?").
  This is the workload prefetch is for, built to have it: the figure says how much it saves
  when agents re-ask in patterns, not how often real agents do.
- ``locomo`` (with ``--data``): LoCoMo's sessions written in order; after each, the prefetch
  job for that session, then the questions whose evidence ends in it, asked with the session
  id. LoCoMo's questions are each asked once, in words no earlier question used: the hit rate
  there says how little a pattern-based predictor can guess of one-off questions.

Each question is also recalled without a session (computed, no cache) in the same run; the
prefetch job's own time (off the request path) is reported apart.

    .venv/bin/python bench/prefetch.py [--sessions 8] [--turns 20]
    .venv/bin/python bench/prefetch.py --data ../shared/datasets/locomo
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memvault import FixedClock, MemVault

PEOPLE = ["Lena", "Tobias", "Rui", "Ana", "Kemal", "Priya", "Sven", "Noor"]
PROJECTS = ["Atlas", "Beacon", "Cobalt", "Delta", "Ember"]
DOING = [
    "I had lunch with {p} and we talked about {q}.",
    "{p} sent me the draft for {q} today.",
    "Call with {p} about the {q} budget went well.",
    "{p} wants to move the {q} launch to next month.",
]


def _ms(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {}
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2),
        "mean_ms": round(statistics.fmean(ordered) * 1000, 2),
    }


class Tally:
    def __init__(self) -> None:
        self.warm: list[float] = []
        self.cold: list[float] = []
        self.baseline: list[float] = []
        self.jobs: list[float] = []
        self.warmed = 0  # entries the jobs warmed (re-warming one counts again)

    def ask(self, vault: MemVault, query: str, ns: str, session: str, now: datetime) -> None:
        # each measured recall meets the question for the first time (no cached query vector)
        vault.recaller._query_vectors.clear()
        started = time.perf_counter()
        got = vault.recall(query, namespace=ns, session_id=session, now=now)
        spent = time.perf_counter() - started
        (self.warm if got.prefetched else self.cold).append(spent)
        vault.recaller._query_vectors.clear()
        started = time.perf_counter()
        vault.recall(query, namespace=ns, now=now)
        self.baseline.append(time.perf_counter() - started)

    def job(self, vault: MemVault, ns: str, session: str, now: datetime) -> None:
        started = time.perf_counter()
        done = vault.prefetch(session, namespace=ns, now=now)
        self.jobs.append(time.perf_counter() - started)
        self.warmed += len(done["warmed"])

    def report(self) -> dict[str, Any]:
        asked = len(self.warm) + len(self.cold)
        with_prefetch = self.warm + self.cold
        base = statistics.fmean(self.baseline) if self.baseline else 0.0
        mine = statistics.fmean(with_prefetch) if with_prefetch else 0.0
        return {
            "questions": asked,
            "hit_rate": round(len(self.warm) / asked, 4) if asked else 0.0,
            # of the entries the jobs warmed, the share a question then used (31.8)
            "warmed": self.warmed,
            "warmed_used": round(len(self.warm) / self.warmed, 4) if self.warmed else 0.0,
            "recall_with_prefetch": _ms(with_prefetch),
            "served_warm": _ms(self.warm),
            "recall_without_prefetch": _ms(self.baseline),
            "latency_saved_per_question_ms": round((base - mine) * 1000, 2),
            "prefetch_job_off_path": _ms(self.jobs),
        }


def agent(sessions: int, turns: int, seed: int, tmp: Path) -> dict[str, Any]:
    rng = random.Random(seed)
    start = datetime(2026, 1, 5, 9, tzinfo=UTC)
    tally = Tally()
    with MemVault.open(tmp / "agent.db", clock=FixedClock(start)) as vault:
        for s in range(sessions):
            session = f"s{s}"
            for t in range(turns):
                now = start + timedelta(days=s, minutes=3 * t)
                person, project = rng.choice(PEOPLE), rng.choice(PROJECTS)
                text = rng.choice(DOING).format(p=person, q=project)
                vault.write(text, speaker="user", session_id=session, now=now)
                tally.job(vault, "default", session, now)
                later = now + timedelta(seconds=20)
                tally.ask(vault, f"What do I know about {person}?", "default", session, later)
                if t % 5 == 4:
                    tally.ask(vault, "What are my current projects?", "default", session, later)
    return tally.report()


def locomo(data: Path, tmp: Path) -> dict[str, Any]:
    turns = [json.loads(x) for x in (data / "turns.jsonl").read_text().splitlines() if x]
    questions = [json.loads(x) for x in (data / "questions.jsonl").read_text().splitlines() if x]
    by_session: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for t in turns:
        if (t.get("text") or "").strip():
            by_session[(t["conv_id"], int(t["session_id"]))].append(t)
    asked_after: dict[tuple[str, int], list[str]] = defaultdict(list)
    for q in questions:
        ends = [int(e.split(":")[0][1:]) for e in q.get("evidence_turn_ids") or []
                if e.startswith("D") and ":" in e and e.split(":")[0][1:].isdigit()]  # fmt: skip
        if ends:
            asked_after[(q["conv_id"], max(ends))].append(q["question"])
    tally = Tally()
    with MemVault.open(tmp / "locomo.db") as vault:
        for conv, number in sorted(by_session, key=lambda k: (k[0], k[1])):
            rows = by_session[(conv, number)]
            ns, session = conv.replace("_", "-"), f"s{number}"
            when = datetime.fromisoformat(rows[0]["session_time_iso"]).replace(tzinfo=UTC)
            items = [{"content": r["text"], "speaker": r["speaker"], "session_id": session,
                      "external_id": r["turn_id"]} for r in rows]  # fmt: skip
            vault.write_many(items, namespace=ns, now=when)
            tally.job(vault, ns, session, when)
            for query in asked_after.get((conv, number), []):
                tally.ask(vault, query, ns, session, when + timedelta(minutes=5))
    return tally.report()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data", type=Path, default=None)
    args = parser.parse_args()
    out: dict[str, Any] = {"benchmark": "prefetch"}
    with tempfile.TemporaryDirectory() as tmp:
        out["agent"] = agent(args.sessions, args.turns, args.seed, Path(tmp))
        if args.data is not None:
            out["locomo"] = locomo(args.data, Path(tmp))
    json.dump(out, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
