"""Leiden communities over composite edges (igraph's built-in Leiden, weighted modularity
with a resolution), and a scan over several resolutions.

igraph's implementation is used rather than the leidenalg package: same algorithm, about
ten times faster at 10k nodes on this hardware, one dependency fewer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memvault.kg.edge_ops import Edge


@dataclass(frozen=True)
class Partition:
    resolution: float
    communities: list[list[str]]  # member entity ids, largest community first
    modularity: float


def leiden(
    nodes: Sequence[str],
    edges: Sequence[Edge],
    *,
    resolution: float = 1.0,
    min_size: int = 2,
    seed: int = 7,
) -> Partition:
    """Communities of at least ``min_size`` members (deterministic for a given seed)."""
    import random

    import igraph as ig

    index = {n: i for i, n in enumerate(nodes)}
    pairs = [(index[e.a], index[e.b]) for e in edges if e.a in index and e.b in index]
    weights = [e.composite for e in edges if e.a in index and e.b in index]
    graph = ig.Graph(n=len(nodes), edges=pairs, directed=False)
    if not pairs:
        return Partition(resolution, [], 0.0)
    random.seed(seed)
    ig.set_random_number_generator(random)
    clustering = graph.community_leiden(
        objective_function="modularity",
        weights=weights,
        resolution=resolution,
        n_iterations=-1,
    )
    groups = [
        sorted(nodes[v] for v in members) for members in clustering if len(members) >= min_size
    ]
    groups.sort(key=lambda g: (-len(g), g[0]))
    return Partition(
        resolution,
        groups,
        round(float(graph.modularity(clustering.membership, weights=weights)), 6),
    )


def scan(
    nodes: Sequence[str], edges: Sequence[Edge], resolutions: Sequence[float], *, min_size: int = 2
) -> list[Partition]:
    """One partition per resolution (low: few large communities; high: many small ones)."""
    return [leiden(nodes, edges, resolution=r, min_size=min_size) for r in resolutions]
