"""Recall ablation: each signal off in turn, on LoCoMo, on the generated temporal-update
benchmark and on the generated LongMemEval-style set (bench/longmem_data.py), in one run.
Each vault is built once (ingest through the evaluation contract); every configuration
re-ranks the same questions with a Recaller built from its settings.

    .venv/bin/python bench/recall_ablation.py --data ../shared/datasets/locomo
    .venv/bin/python bench/recall_ablation.py --only "all signals" "no context"

Prints one JSON line per configuration: LoCoMo recall@10 (overall non-adversarial and per
category); on the temporal set, R@10 per category plus R@1 of the newest statement and
"newest above every outdated" for questions about now; on the long-memory set, R@10 per
category.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from longmem import score as longmem_score
from longmem_data import write as write_longmem
from temporal_data import write
from temporal_updates import score

from memvault import MemVault
from memvault.eval.recall_eval import namespace_for, ranked_turns, read_jsonl, run_recall_eval
from memvault.interop.jsonl import parse_session_time
from memvault.recall import Recaller

TYPES = ("user", "feedback", "project", "reference", "episodic")
OFF = {"dense": 0.0, "keyword": 0.0, "graph": 0.0, "actor": 0.0, "context": 0.0, "session": 0.0}
CONFIGS: dict[str, dict[str, Any]] = {
    "all signals": {},
    "no currency": {"currency": False},
    **{f"no {name}": {"channel_weights": {name: 0.0}} for name in OFF},
    "no age decay": {"decay_per_day": dict.fromkeys(TYPES, 0.0)},
    "dense only": {"channel_weights": {**OFF, "dense": 1.0}},
    "speakers' names in the query vector": {"speakers_in_query_vector": True},
}


def last_times(turns: list[dict[str, Any]]) -> dict[str, datetime]:
    out: dict[str, datetime] = {}
    for t in turns:
        when = parse_session_time(str(t.get("session_time_iso") or t.get("session_time")))
        out[t["conv_id"]] = max(out.get(t["conv_id"], when), when)
    return out


SPENT: list[float] = []  # seconds each recall of ``rank`` took (read by bench/recall_fusion.py)


def rank(vault: MemVault, questions: list[dict[str, Any]], lt: dict, over: dict) -> dict:
    settings = vault.settings.recall
    if "channel_weights" in over:
        over = {**over, "channel_weights": {**settings.channel_weights, **over["channel_weights"]}}
    base = vault.recaller
    vault.recaller = Recaller(
        store=vault.store,
        embedder=vault.c.embedder,
        settings=settings.model_copy(update=over),
        single_valued=base.single_valued,
        opposites=base.opposites,
    )
    try:
        out = {}
        for q in questions:
            now = (
                parse_session_time(str(q["question_date"]))
                if q.get("question_date")
                else lt[q["conv_id"]]
            )
            ns = namespace_for(q["conv_id"])
            started = time.perf_counter()
            out[q["question_id"]] = ranked_turns(vault, ns, q["question"], 10, now)
            SPENT.append(time.perf_counter() - started)
        return out
    finally:
        vault.recaller = base


def locomo_score(questions: list[dict[str, Any]], ranked: dict[str, list[str]]) -> dict:
    per: dict[str, list[float]] = defaultdict(list)
    for q in questions:
        gold = set(q.get("evidence_turn_ids") or [])
        if gold:
            hit = len(gold & set(ranked[q["question_id"]][:10])) / len(gold)
            per[q.get("category_name") or "all"].append(hit)
    core = [x for c, v in per.items() if c != "adversarial" for x in v]
    return {"overall": round(sum(core) / len(core), 4)} | {
        c: round(sum(v) / len(v), 4) for c, v in sorted(per.items())
    }


def build(path: Path, turns: Path, questions: Path) -> MemVault:
    vault = MemVault.open(path, sqlite_synchronous="NORMAL")
    run_recall_eval(vault, turns, questions, k=10, out=None)
    return vault


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/datasets/locomo"))
    parser.add_argument("--people", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--users", type=int, default=6, help="long-memory set: users")
    parser.add_argument("--only", nargs="*", default=None, help="only these configurations")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        lt_path, lq_path = args.data / "turns.jsonl", args.data / "questions.jsonl"
        tt_path, tq_path = write(Path(tmp) / "temporal", args.people, args.seed)
        mt_path, mq_path = write_longmem(Path(tmp) / "longmem", args.users, 11)
        sets = []
        for name, t, q in (
            ("locomo", lt_path, lq_path),
            ("temporal", tt_path, tq_path),
            ("longmem", mt_path, mq_path),
        ):
            turns = read_jsonl(t, ("conv_id", "turn_id", "text"))
            questions = read_jsonl(q, ("conv_id", "question_id", "question"))
            sets.append((build(Path(tmp) / f"{name}.db", t, q), questions, last_times(turns)))
        (lv, lq, llt), (tv, tq, tlt), (mv, mq, mlt) = sets
        for name, over in CONFIGS.items():
            if args.only and name not in args.only:
                continue
            temporal = score(tq, rank(tv, tq, tlt, over), 10)
            row = {
                "config": name,
                "locomo": locomo_score(lq, rank(lv, lq, llt, over)),
                "temporal": {
                    c: {m: v for m, v in r.items() if m != "n"} for c, r in temporal.items()
                },
                "longmem": longmem_score(mq, rank(mv, mq, mlt, over), 10),
            }
            print(json.dumps(row), flush=True)
        for v in (lv, tv, mv):
            v.close()


if __name__ == "__main__":
    main()
