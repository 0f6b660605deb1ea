"""Composite edges + Leiden for N entities and M co-occurrences (default 10k / 50k and
100k / 500k), the edges vectorised with scipy sparse, Leiden from igraph.

The graph is synthetic: entities in planted groups of 20 with 40 recurring pairs each; each
co-occurrence is an episode naming two entities (90% a recurring pair of one group, 10% two
random entities), in a few sessions per group (noise in sessions of their own); entity
vectors are a group direction plus noise. Reported per size: seconds for edges, for Leiden,
together (goal ≤ 3 s at 10k and ≤ 60 s at 100k), edges kept, communities, and how many
planted groups Leiden recovered exactly.

    .venv/bin/python bench/graph.py --sizes 10000:50000 100000:500000
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from memvault.config import GraphSettings
from memvault.kg.communities import leiden
from memvault.kg.edge_ops import composite_edges


def synthetic(
    n: int, m: int, seed: int = 3
) -> tuple[list[str], dict[str, list[str]], dict[str, str], dict[str, np.ndarray]]:
    """Groups of 20 entities, each with 40 recurring pairs (a ring and 20 chords); 90% of the
    co-occurrences repeat a pair of one group, 10% join two random entities once."""
    rng = np.random.default_rng(seed)
    ids = [f"e{i:06d}" for i in range(n)]
    groups = n // 20
    ring = [(k, (k + 1) % 20) for k in range(20)]
    chords = [(int(x), int(y)) for x, y in rng.integers(0, 20, (20, 2)) if x != y]
    local = np.array(ring + chords)
    g = rng.integers(0, groups, m)
    pick = local[rng.integers(0, len(local), m)]
    a = g * 20 + pick[:, 0]
    b = g * 20 + pick[:, 1]
    noise = rng.random(m) >= 0.9
    a[noise] = rng.integers(0, n, int(noise.sum()))
    b[noise] = rng.integers(0, n, int(noise.sum()))
    keep = [k for k in range(m) if a[k] != b[k]]
    mentions = {f"ep{k}": [ids[a[k]], ids[b[k]]] for k in keep}
    # sessions follow topics, as conversations do: a group's talk falls in a few sessions
    bucket = rng.integers(0, 3, m)
    sessions = {f"ep{k}": (f"noise{k}" if noise[k] else f"s{g[k]}-{bucket[k]}") for k in keep}
    group = np.arange(n) // 20
    directions = rng.standard_normal((groups, 32)).astype(np.float32)
    vectors = directions[group] + 0.6 * rng.standard_normal((n, 32)).astype(np.float32)
    return ids, mentions, sessions, {ids[i]: vectors[i] for i in range(n)}


def run(n: int, m: int) -> dict[str, object]:
    ids, mentions, sessions, vectors = synthetic(n, m)
    s = GraphSettings()
    started = time.perf_counter()
    edges = composite_edges(
        ids,
        ["unknown"] * n,
        mentions,
        sessions,
        vectors,
        s,
    )
    edges_s = time.perf_counter() - started
    started = time.perf_counter()
    partition = leiden(ids, edges, resolution=s.resolution)
    leiden_s = time.perf_counter() - started
    planted = {tuple(ids[g * 20 : g * 20 + 20]) for g in range(n // 20)}
    exact = sum(1 for c in partition.communities if tuple(c) in planted)
    return {
        "entities": n,
        "co_occurrences": len(mentions),
        "edges_s": round(edges_s, 2),
        "leiden_s": round(leiden_s, 2),
        "total_s": round(edges_s + leiden_s, 2),
        "edges_kept": len(edges),
        "communities": len(partition.communities),
        "modularity": partition.modularity,
        "planted_groups": len(planted),
        "planted_recovered_exactly": exact,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", nargs="+", default=["10000:50000", "100000:500000"])
    args = parser.parse_args()
    runs = [run(*map(int, size.split(":"))) for size in args.sizes]
    print(
        json.dumps(
            {"benchmark": "graph", "runs": runs, "goal_total_s": {"10000": 3, "100000": 60}},
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
