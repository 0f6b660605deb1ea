"""Does recall tell current from outdated? On the generated temporal-update benchmark
(bench/temporal_data.py), memvault before any dream and after one dream per person, beside
plain BM25 over turns and plain dense cosine with the same embedder (also with the speakers'
names out of the question, as memvault embeds it), in the same run.

Per category: R@10; for ``current`` questions also R@1 of the newest statement and
"newest above every outdated" (the newest statement is in the top 10 and ranks above every
earlier statement of the same attribute).

    .venv/bin/python bench/temporal_updates.py --people 12 --seed 7
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo_recall import bm25_rank
from temporal_data import write

from memvault import MemVault
from memvault.eval.recall_eval import dream_each, read_jsonl, run_recall_eval
from memvault.recall.query import vector_text


def score(questions: list[dict], ranked: dict[str, list[str]], k: int) -> dict[str, dict]:
    rows: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for q in questions:
        got, gold = ranked.get(q["question_id"], [])[:k], set(q["evidence_turn_ids"])
        cat = rows[q["category_name"]]
        cat[f"R@{k}"].append(len(gold & set(got)) / len(gold))
        if q["category_name"] == "current":
            newest = q["evidence_turn_ids"][0]
            cat["R@1_newest"].append(float(bool(got) and got[0] == newest))
            pos = {t: i for i, t in enumerate(got)}
            above = newest in pos and all(
                pos[newest] < pos.get(o, k) for o in q["outdated_turn_ids"]
            )
            cat["newest_above_outdated"].append(float(above))
        if q["category_name"] == "then":  # what was true then, above what was said after it
            then = q["evidence_turn_ids"][0]
            cat["R@1_then"].append(float(bool(got) and got[0] == then))
            pos = {t: i for i, t in enumerate(got)}
            above = then in pos and all(pos[then] < pos.get(o, k) for o in q["later_turn_ids"])
            cat["then_above_later"].append(float(above))
    return {
        c: {m: round(float(np.mean(v)), 4) for m, v in sorted(ms.items())}
        | {"n": len(next(iter(ms.values())))}
        for c, ms in sorted(rows.items())
    }


def memvault_ranked(
    turns: Path, questions: Path, k: int, dream: bool, recall: dict | None = None
) -> tuple[dict, float]:
    out = io.StringIO()
    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory() as tmp,
        MemVault.open(Path(tmp) / "t.db", recall=recall or {}) as vault,
    ):
        run_recall_eval(
            vault, turns, questions, k=k, out=out, after_ingest=dream_each if dream else None
        )
    ranked = {}
    for line in out.getvalue().splitlines():
        row = json.loads(line)
        ranked[row["question_id"]] = row["ranked"]
    return ranked, time.perf_counter() - started


def baseline_ranked(turns: list[dict], questions: list[dict], k: int) -> tuple[dict, dict, dict]:
    """Plain BM25, plain dense cosine, and dense cosine with the question embedded without
    its conversation's speakers' names (as memvault embeds it: docs/decisions/0010)."""
    by_conv: dict[str, list[dict]] = defaultdict(list)
    for t in turns:
        by_conv[t["conv_id"]].append(t)
    with tempfile.TemporaryDirectory() as tmp, MemVault.open(Path(tmp) / "e.db") as vault:
        embed = vault.c.embedder.embed
        matrices = {c: embed([t["text"] for t in ts]) for c, ts in by_conv.items()}
        speakers = {c: {t.get("speaker") or "" for t in ts} - {""} for c, ts in by_conv.items()}
        bm, dense, unnamed = {}, {}, {}
        for q in questions:
            ts = by_conv[q["conv_id"]]
            ids = [t["turn_id"] for t in ts]
            bm[q["question_id"]] = [
                ids[i] for i in bm25_rank([t["text"] for t in ts], q["question"], k)
            ]
            sims = matrices[q["conv_id"]] @ embed([q["question"]])[0]
            dense[q["question_id"]] = [ids[i] for i in np.argsort(-sims)[:k]]
            text = vector_text(q["question"], speakers[q["conv_id"]])
            sims = matrices[q["conv_id"]] @ embed([text])[0]
            unnamed[q["question_id"]] = [ids[i] for i in np.argsort(-sims)[:k]]
    return bm, dense, unnamed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument(
        "--recall",
        action="append",
        default=[],
        metavar="KEY=JSON",
        help="Also run memvault with a recall setting changed (as bench/currency_heldout.py).",
    )
    args = parser.parse_args()
    from currency_heldout import recall_variants  # it imports this module

    variants = recall_variants(args.recall)
    variants.pop("default")
    with tempfile.TemporaryDirectory() as tmp:
        turns_path, questions_path = write(Path(tmp), args.people, args.seed)
        turns = read_jsonl(turns_path, ("conv_id", "turn_id", "text"))
        questions = read_jsonl(questions_path, ("conv_id", "question_id", "question"))
        before, t_before = memvault_ranked(turns_path, questions_path, args.k, dream=False)
        after, t_after = memvault_ranked(turns_path, questions_path, args.k, dream=True)
        bm, dense, unnamed = baseline_ranked(turns, questions, args.k)
        extra = {
            f"memvault {name} {'after' if dream else 'before'} dream": score(
                questions,
                memvault_ranked(turns_path, questions_path, args.k, dream, over)[0],
                args.k,
            )
            for name, over in variants.items()
            for dream in (False, True)
        }
    result = {
        "benchmark": "temporal_updates",
        "people": args.people,
        "seed": args.seed,
        "turns": len(turns),
        "questions": len(questions),
        "memvault_before_dream": score(questions, before, args.k),
        "memvault_after_dream": score(questions, after, args.k),
        **extra,
        "bm25": score(questions, bm, args.k),
        "dense": score(questions, dense, args.k),
        "dense_without_speakers": score(questions, unnamed, args.k),
        "seconds": {"before": round(t_before, 1), "after": round(t_after, 1)},
    }
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
