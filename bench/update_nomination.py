"""Which pairs of statements reach the dream's update judge when a model is configured
(issue 33 item 2)? A model can only link an update it is shown: on the held-out currency data
(bench/currency_data.py: families 0 and 2 dev, 1 and 3 test), the share of true update pairs
(an older and a newer statement of one person about one attribute) that a nomination
strategy puts before the judge, and how many pairs it judges per statement (the cost): the
former rule (cosine ≥ 0.6, at most 3), the nearest few at any cosine, and the shipped one
(the nearest ``candidates_per_episode`` 5 at cosine ≥ ``candidate_cosine`` 0.1). A repeat of
the same words is never paired.

    .venv/bin/python bench/update_nomination.py --people 24 --seed 11
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from currency_data import FAMILIES, generate

from memvault.bootstrap import build_embedder, load_settings


def nominated(texts: list[str], vectors: np.ndarray, k: int, floor: float) -> list[set[int]]:
    """For each statement (in time order), the older ones nominated: the ``k`` nearest by
    cosine among those at least ``floor``, a repeat of the same words left out (the dream's
    duplicate merge handles those), as memvault.dream.updates does."""
    out: list[set[int]] = []
    for n in range(len(vectors)):
        older = [i for i in range(n) if texts[i] != texts[n]]
        if not older:
            out.append(set())
            continue
        sims = vectors[older] @ vectors[n]
        out.append({older[int(i)] for i in np.argsort(-sims)[:k] if sims[i] >= floor})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=24)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    turns, questions = generate(args.people, args.seed)
    attr_of: dict[str, str] = {}
    for q in questions:
        if q["category_name"] == "current":
            for t in q["evidence_turn_ids"] + q["outdated_turn_ids"]:
                attr_of[t] = q["attribute"]
    family = {q["conv_id"]: q["family"] for q in questions}
    by_conv: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for t in turns:
        if t["speaker"] != "Assistant":
            by_conv[t["conv_id"]].append(t)
    embedder = build_embedder(load_settings())
    strategies = {
        "former: cosine >= 0.6, at most 3": (3, 0.6),
        "nearest 3": (3, -1.0),
        "nearest 5": (5, -1.0),
        "nearest 8": (8, -1.0),
        "nearest 5, cosine >= 0.2": (5, 0.2),
        "shipped: nearest 5, cosine >= 0.1": (5, 0.1),
    }
    result: dict[str, Any] = {"benchmark": "update_nomination", "people": args.people,
                              "seed": args.seed}  # fmt: skip
    for name, (k, floor) in strategies.items():
        row: dict[str, dict[str, float]] = {}
        for split in ("dev", "test"):
            found = total = judged = statements = 0
            for conv, ts in by_conv.items():
                if FAMILIES[family[conv]] != split:
                    continue
                texts = [t["text"] for t in ts]
                vectors = np.asarray(embedder.embed(texts))
                picks = nominated(texts, vectors, k, floor)
                statements += len(ts)
                judged += sum(len(p) for p in picks)
                for n, t in enumerate(ts):
                    attr = attr_of.get(t["turn_id"])
                    if attr is None:
                        continue
                    for o in range(n):
                        if attr_of.get(ts[o]["turn_id"]) == attr and ts[o]["text"] != t["text"]:
                            total += 1
                            found += o in picks[n]
            row[split] = {
                "pairs_reaching_the_judge": round(found / max(total, 1), 3),
                "true_pairs": total,
                "pairs_judged_per_statement": round(judged / max(statements, 1), 2),
            }
        result[name] = row
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
