"""Currency on held-out phrasings (issue 33): does recall put the newest statement above the
outdated ones when the change is said in a way no rule was written for? On
bench/currency_data.py's families (0 and 2 dev, 1 and 3 test), memvault before any dream and
after one dream per person, beside plain BM25 and plain dense cosine, per split; pets must
coexist (recall of every pet). ``--recall KEY=JSON`` (repeat) adds memvault variants with a
recall setting changed (or ``--recall '{"a": 1, "b": 2}'`` for several), in the same run.
``--reach N`` adds what any re-ordering could reach: the share of the "current" questions
whose newest statement is in memvault's top k, in its top N (the statements currency's
grouping looks at), and in the top k of any of the parts (BM25, dense cosine, dense cosine
with the question's names taken out): a statement no list brings near the question is one
no ordering puts first.

    .venv/bin/python bench/currency_heldout.py --people 24 --seed 11
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from currency_data import write
from temporal_updates import baseline_ranked, score

from memvault import MemVault
from memvault.eval.recall_eval import dream_each, read_jsonl, run_recall_eval


def ranked_by_memvault(
    turns: Path, questions: Path, k: int, dream: bool, recall: dict[str, Any]
) -> dict[str, list[str]]:
    out = io.StringIO()
    after = dream_each if dream else None
    with tempfile.TemporaryDirectory() as tmp:
        vault = MemVault.open(Path(tmp) / "c.db", recall=recall)
        try:
            run_recall_eval(vault, turns, questions, k=k, out=out, after_ingest=after)
        finally:
            vault.close()
    return {
        row["question_id"]: row["ranked"]
        for row in (json.loads(line) for line in out.getvalue().splitlines())
    }


def recall_variants(items: list[str]) -> dict[str, dict[str, Any]]:
    """``--recall`` values (KEY=JSON, or a JSON object of several settings) by name, after
    the shipped settings ("default")."""
    variants: dict[str, dict[str, Any]] = {"default": {}}
    for item in items:
        if item.lstrip().startswith("{"):
            variants[item] = json.loads(item)
        else:
            key, _, value = item.partition("=")
            variants[item] = {key: json.loads(value)}
    return variants


def by_split(questions: list[dict[str, Any]], ranked: dict, k: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for split in ("dev", "test"):
        qs = [q for q in questions if q["split"] == split]
        out[split] = score(qs, ranked, k)
    return out


def reach(
    questions: list[dict], memvault: dict, parts: list[dict], k: int, n: int
) -> dict[str, dict[str, float]]:
    """Per split, the share of "current" questions whose newest statement is in memvault's
    top ``k`` and top ``n``, and in the top ``k`` of memvault or any of ``parts``."""
    out: dict[str, dict[str, float]] = {}
    lists = [memvault, *parts]
    for split in ("dev", "test"):
        qs = [q for q in questions if q["split"] == split and q["category_name"] == "current"]
        rows: dict[str, list[bool]] = defaultdict(list)
        for q in qs:
            newest, qid = q["evidence_turn_ids"][0], q["question_id"]
            rows[f"memvault top {k}"].append(newest in memvault[qid][:k])
            rows[f"memvault top {n}"].append(newest in memvault[qid][:n])
            rows[f"any part's top {k}"].append(any(newest in r[qid][:k] for r in lists))
        out[split] = {name: round(sum(v) / len(v), 3) for name, v in rows.items()} | {"n": len(qs)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=24)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--recall", action="append", default=[], metavar="KEY=JSON")
    parser.add_argument("--no-dream", action="store_true", help="Skip the after-dream runs.")
    parser.add_argument(
        "--reach", type=int, default=0, metavar="N", help="Also report what reordering can reach."
    )
    args = parser.parse_args()
    variants = recall_variants(args.recall)
    result: dict[str, Any] = {"benchmark": "currency_heldout", "people": args.people,
                              "seed": args.seed}  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        turns_path, questions_path = write(Path(tmp), args.people, args.seed)
        turns = read_jsonl(turns_path, ("conv_id", "turn_id", "text"))
        questions = read_jsonl(questions_path, ("conv_id", "question_id", "question"))
        result["turns"], result["questions"] = len(turns), len(questions)
        for name, over in variants.items():
            for dream in (False, True) if not args.no_dream else (False,):
                ranked = ranked_by_memvault(turns_path, questions_path, args.k, dream, over)
                label = f"memvault {name} {'after' if dream else 'before'} dream"
                result[label] = by_split(questions, ranked, args.k)
        depth = max(args.k, args.reach)
        bm, dense, unnamed = baseline_ranked(turns, questions, depth)
        result["bm25"] = by_split(questions, bm, args.k)
        result["dense"] = by_split(questions, dense, args.k)
        if args.reach:
            mv = ranked_by_memvault(turns_path, questions_path, depth, False, {})
            result["reach"] = reach(questions, mv, [bm, dense, unnamed], args.k, args.reach)
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
