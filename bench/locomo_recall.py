"""recall@k on LoCoMo: memvault against plain BM25 over turns and plain dense cosine.

All rank the same turns for the same questions in one run. BM25 is Okapi (k1 1.5, b 0.75)
over lower-cased word tokens of the turn text; dense is cosine between the question and the
turn text with memvault's embedder; dense_without_speakers the same with the conversation's
speakers' names taken out of the question, as memvault embeds it (docs/decisions/0010).
Adversarial questions are reported apart and left out of "overall".
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from memvault import MemVault
from memvault.eval.baselines import Bm25
from memvault.eval.recall_eval import read_jsonl, run_recall_eval
from memvault.recall.query import vector_text


def bm25_rank(docs: list[str], query: str, k: int) -> list[int]:
    """The top k documents by BM25 (memvault.eval.baselines, what ``eval recall
    --baselines`` runs)."""
    return Bm25(docs).rank(query, k)


def summarise(scores: dict[str, list[float]]) -> dict[str, object]:
    per = {c: round(float(np.mean(v)), 4) for c, v in sorted(scores.items())}
    core = [s for c, v in scores.items() if c != "adversarial" for s in v]
    return {"per_category": per, "overall": round(float(np.mean(core)), 4)}


def baselines(turns: list[dict], questions: list[dict], vault: MemVault, k: int) -> dict:
    by_conv: dict[str, list[dict]] = defaultdict(list)
    for t in turns:
        by_conv[t["conv_id"]].append(t)
    bm: dict[str, list[float]] = defaultdict(list)
    dense: dict[str, list[float]] = defaultdict(list)
    unnamed: dict[str, list[float]] = defaultdict(list)
    embed = vault.c.embedder.embed
    matrices = {c: embed([t["text"] for t in ts]) for c, ts in by_conv.items()}
    speakers = {c: {t.get("speaker") or "" for t in ts} - {""} for c, ts in by_conv.items()}
    for q in questions:
        gold = set(q.get("evidence_turn_ids") or [])
        if not gold:
            continue
        ts = by_conv[q["conv_id"]]
        ids = [t["turn_id"] for t in ts]
        top_bm = {ids[i] for i in bm25_rank([t["text"] for t in ts], q["question"], k)}
        sims = matrices[q["conv_id"]] @ embed([q["question"]])[0]
        top_dense = {ids[i] for i in np.argsort(-sims)[:k]}
        sims = (
            matrices[q["conv_id"]] @ embed([vector_text(q["question"], speakers[q["conv_id"]])])[0]
        )
        top_unnamed = {ids[i] for i in np.argsort(-sims)[:k]}
        cat = q.get("category_name") or "all"
        bm[cat].append(len(gold & top_bm) / len(gold))
        dense[cat].append(len(gold & top_dense) / len(gold))
        unnamed[cat].append(len(gold & top_unnamed) / len(gold))
    return {
        "bm25": summarise(bm),
        "dense": summarise(dense),
        "dense_without_speakers": summarise(unnamed),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path("../shared/datasets/locomo"))
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()
    turns_path, questions_path = args.data / "turns.jsonl", args.data / "questions.jsonl"
    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory() as tmp,
        MemVault.open(Path(tmp) / "bench.db", sqlite_synchronous="NORMAL") as vault,
    ):
        report = run_recall_eval(vault, turns_path, questions_path, k=args.k, out=None)
        turns = read_jsonl(turns_path, ("conv_id", "turn_id", "text"))
        questions = read_jsonl(questions_path, ("conv_id", "question_id", "question"))
        base = baselines(turns, questions, vault, args.k)
        embedder = vault.c.embedder.name
    result = {
        "benchmark": "locomo_recall",
        "k": args.k,
        "embedder": embedder,
        "questions_scored": report.scored,
        "memvault": {
            "per_category": {c: v[f"recall@{args.k}"] for c, v in report.per_category.items()},
            "overall": report.overall,
        },
        **base,
        "ingest_s": round(report.ingest_s, 1),
        "recall_s": round(report.recall_s, 1),
        "total_s": round(time.perf_counter() - started, 1),
    }
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
