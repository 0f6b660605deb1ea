"""Currency on held-out phrasings (issue 33): does recall put the newest statement above the
outdated ones when the change is said in a way no rule was written for? On
bench/currency_data.py's families (0 and 2 dev, 1 and 3 test), memvault before any dream and
after one dream per person, beside plain BM25 and plain dense cosine, per split; pets must
coexist (recall of every pet). ``--recall KEY=JSON`` (repeat) adds memvault variants with a
recall setting changed (or ``--recall '{"a": 1, "b": 2}'`` for several), in the same run.

    .venv/bin/python bench/currency_heldout.py --people 24 --seed 11
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=24)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--recall", action="append", default=[], metavar="KEY=JSON")
    parser.add_argument("--no-dream", action="store_true", help="Skip the after-dream runs.")
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
        bm, dense, _ = baseline_ranked(turns, questions, args.k)
        result["bm25"] = by_split(questions, bm, args.k)
        result["dense"] = by_split(questions, dense, args.k)
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
