"""Never below the simple baselines, on long histories memvault was not tuned on: the
generated LongMemEval-style benchmark (bench/longmem_data.py), memvault before and after one
dream per user beside plain BM25 and plain dense cosine over the same turns (also with the
speakers' names out of the question, as memvault embeds it), in the same run; R@k per
category, and per category whether memvault is at least the best baseline.

    .venv/bin/python bench/longmem.py --users 6 --seed 11
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from longmem_data import write
from temporal_updates import baseline_ranked, memvault_ranked

from memvault.eval.recall_eval import read_jsonl


def score(questions: list[dict], ranked: dict[str, list[str]], k: int) -> dict[str, float]:
    per: dict[str, list[float]] = defaultdict(list)
    for q in questions:
        got, gold = set(ranked.get(q["question_id"], [])[:k]), set(q["evidence_turn_ids"])
        per[q["category_name"]].append(len(gold & got) / len(gold))
        per["overall"].append(len(gold & got) / len(gold))
    return {c: round(float(np.mean(v)), 4) for c, v in sorted(per.items())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=6)
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        turns_path, questions_path = write(Path(tmp), args.users, args.seed, args.sessions)
        turns = read_jsonl(turns_path, ("conv_id", "turn_id", "text"))
        questions = read_jsonl(questions_path, ("conv_id", "question_id", "question"))
        before, t_before = memvault_ranked(turns_path, questions_path, args.k, dream=False)
        after, t_after = memvault_ranked(turns_path, questions_path, args.k, dream=True)
        bm, dense, unnamed = baseline_ranked(turns, questions, args.k)
    rows = {
        "memvault_before_dream": score(questions, before, args.k),
        "memvault_after_dream": score(questions, after, args.k),
        "bm25": score(questions, bm, args.k),
        "dense": score(questions, dense, args.k),
        "dense_without_speakers": score(questions, unnamed, args.k),
    }
    baselines = ("bm25", "dense", "dense_without_speakers")
    floor = {c: max(rows[b][c] for b in baselines) for c in rows["bm25"]}
    result = {
        "benchmark": "longmem_generated",
        "users": args.users,
        "seed": args.seed,
        "turns": len(turns),
        "questions": len(questions),
        **rows,
        "at_least_the_better_baseline": {
            name: {c: rows[name][c] >= floor[c] for c in floor}
            for name in ("memvault_before_dream", "memvault_after_dream")
        },
        "seconds": {"before": round(t_before, 1), "after": round(t_after, 1)},
    }
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
