"""Two copies of one history rank alike? The held-out currency set (bench/currency_data.py)
written into two vaults whose vectors are embedded one text a run in the first and
``--batch`` texts a run in the second (as a catch-up running beside the writer may batch
them: a text's vector moves in its last bits with the batch), then every question asked of
both at ``--k``. Prints how many stored turn vectors differ and by how much, and how many
questions' top 10 and top ``k`` differ; R@10 of each copy.

    .venv/bin/python bench/rank_stability.py --people 24 --seed 11
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from currency_data import write

from memvault import MemVault
from memvault.eval.recall_eval import namespace_for, read_jsonl, run_recall_eval, stored_turns


def copy(
    path: Path, turns: Path, questions: Path, batch: int, k: int
) -> tuple[dict[str, list[str]], dict[str, np.ndarray]]:
    """Every question's ranked turn ids, and every stored turn's vector by turn id."""
    out = io.StringIO()
    with MemVault.open(path) as vault:
        vault.c.embedder.batch_size = batch  # type: ignore[attr-defined]
        run_recall_eval(vault, turns, questions, k=k, out=out)
        convs = {str(t["conv_id"]) for t in read_jsonl(turns, ("conv_id", "turn_id", "text"))}
        vectors: dict[str, np.ndarray] = {}
        for conv in sorted(convs):
            stored = stored_turns(vault, namespace_for(conv))
            vectors |= dict(zip(stored.ids, stored.matrix, strict=True))
    ranked = {
        row["question_id"]: row["ranked"]
        for row in (json.loads(line) for line in out.getvalue().splitlines())
    }
    return ranked, vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=24)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--k", type=int, default=30)
    args = parser.parse_args()
    result: dict[str, Any] = {"benchmark": "rank_stability", "people": args.people,
                              "seed": args.seed, "batch": args.batch, "k": args.k}  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        turns, questions = write(Path(tmp), args.people, args.seed)
        one, v1 = copy(Path(tmp) / "one.db", turns, questions, 1, args.k)
        many, vn = copy(Path(tmp) / "many.db", turns, questions, args.batch, args.k)
        gold = {
            q["question_id"]: set(q.get("evidence_turn_ids") or [])
            for q in read_jsonl(questions, ("conv_id", "question_id", "question"))
        }
    gaps = [float(np.abs(v1[t] - vn[t]).max()) for t in v1 if t in vn]
    result["turns"] = len(gaps)
    result["vectors_differing"] = sum(1 for g in gaps if g > 0)
    result["largest_difference"] = max(gaps, default=0.0)
    result["questions"] = len(one)
    result["top_10_differs"] = sum(1 for q in one if one[q][:10] != many[q][:10])
    result[f"top_{args.k}_differs"] = sum(1 for q in one if one[q] != many[q])
    for name, ranked in (("R@10 one a run", one), (f"R@10 {args.batch} a run", many)):
        scored = [len(gold[q] & set(ranked[q][:10])) / len(gold[q]) for q in ranked if gold[q]]
        result[name] = round(sum(scored) / len(scored), 4)
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
