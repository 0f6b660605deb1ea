"""Discovery precision and recall on a synthetic graph with planted bridges and gaps.

Base: the graph of bench/graph.py (groups of 20 entities with recurring pairs, topical
sessions, 10% one-off noise). A first pass gives the "previous" edges and the communities.
Then, planted: ``--bridges`` pairs across two groups, each co-mentioned 5 times in a session
of its own (new, strong, cross-community edges), and ``--gaps`` entities mentioned 12 times
each, always alone (busy, unconnected). Discovery runs with the default k and no per-kind
cap; precision and recall are over the planted sets.

    .venv/bin/python bench/discovery.py --entities 10000 --co 50000
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from graph import synthetic

from memvault.config import GraphSettings
from memvault.kg.communities import leiden
from memvault.kg.discovery import cross_community, knowledge_gaps
from memvault.kg.edge_ops import co_mention_counts, composite_edges


def edges_of(ids, mentions, sessions, vectors, s):  # type: ignore[no-untyped-def]
    return composite_edges(
        ids,
        ["unknown"] * len(ids),
        mentions,
        sessions,
        vectors,
        s,
    )


def score(found: set, planted: set) -> dict[str, float]:  # type: ignore[type-arg]
    hit = len(found & planted)
    return {
        "found": len(found),
        "planted": len(planted),
        "precision": round(hit / len(found), 4) if found else 0.0,
        "recall": round(hit / len(planted), 4) if planted else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--co", type=int, default=50_000)
    parser.add_argument("--bridges", type=int, default=50)
    parser.add_argument("--gaps", type=int, default=50)
    args = parser.parse_args()
    s = GraphSettings()
    rng = np.random.default_rng(11)
    ids, mentions, sessions, vectors = synthetic(args.entities, args.co)
    before = edges_of(ids, mentions, sessions, vectors, s)
    repeated = co_mention_counts(ids, mentions)
    previous = {(e.a, e.b) for e in before} | {
        p for p, n in repeated.items() if n >= s.bridge_min_mentions
    }

    groups = args.entities // 20
    bridges = set()
    for k in range(args.bridges):
        g1, g2 = rng.choice(groups, 2, replace=False)
        a, b = ids[g1 * 20 + rng.integers(20)], ids[g2 * 20 + rng.integers(20)]
        bridges.add((min(a, b), max(a, b)))
        for r in range(5):
            mentions[f"bridge{k}-{r}"] = [a, b]
            sessions[f"bridge{k}-{r}"] = f"bridge{k}"
    gap_ids = [f"gap{k:04d}" for k in range(args.gaps)]
    for g in gap_ids:
        ids.append(g)
        vectors[g] = rng.standard_normal(32).astype(np.float32)
        for r in range(12):
            mentions[f"{g}-{r}"] = [g]
            sessions[f"{g}-{r}"] = f"{g}-s{r}"

    started = time.perf_counter()
    after = edges_of(ids, mentions, sessions, vectors, s)
    partition = leiden(ids, after)
    membership = {m: n for n, c in enumerate(partition.communities) for m in c}
    counts = Counter(e for ents in mentions.values() for e in set(ents))
    cross = cross_community(
        after,
        membership,
        previous,
        s.discovery_k,
        co_mentions=co_mention_counts(ids, mentions),
        min_repeats=s.bridge_min_mentions,
    )
    gaps = knowledge_gaps(
        ids,
        {i: "unknown" for i in ids},
        counts,
        after,
        s.discovery_k,
        co_mentions=co_mention_counts(ids, mentions),
    )
    elapsed = time.perf_counter() - started
    print(
        json.dumps(
            {
                "benchmark": "discovery",
                "entities": len(ids),
                "co_occurrences": len(mentions),
                "k": s.discovery_k,
                "cross_community": score({d.entities for d in cross}, bridges),
                "knowledge_gap": score({d.entities[0] for d in gaps}, set(gap_ids)),
                "seconds": round(elapsed, 2),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
