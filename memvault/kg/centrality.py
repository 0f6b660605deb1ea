"""Personalised PageRank over a namespace's entity graph (igraph, in memory)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def personalized_pagerank(
    nodes: Sequence[str],
    edges: Sequence[tuple[str, str, float]],
    seeds: Sequence[str] | Mapping[str, float],
    *,
    top: int = 10,
    damping: float = 0.85,
) -> list[tuple[str, float]]:
    """The ``top`` nodes by PageRank personalised to ``seeds`` (plain PageRank without
    seeds; a mapping weighs each seed), best first. Edges are undirected and weighted."""
    if not nodes:
        return []
    import igraph as ig

    index = {n: i for i, n in enumerate(nodes)}
    pairs = [(index[a], index[b]) for a, b, _ in edges if a in index and b in index and a != b]
    weights = [w for a, b, w in edges if a in index and b in index and a != b]
    graph = ig.Graph(n=len(nodes), edges=pairs, directed=False)
    if isinstance(seeds, Mapping) and any(s in index for s in seeds):
        mass = [0.0] * len(nodes)
        for s, w in seeds.items():
            if s in index:
                mass[index[s]] = float(w)
        scores = graph.personalized_pagerank(damping=damping, reset=mass, weights=weights or None)
    else:
        reset = [index[s] for s in seeds if s in index] or None
        scores = graph.personalized_pagerank(
            damping=damping, reset_vertices=reset, weights=weights or None
        )
    ranked = sorted(zip(nodes, scores, strict=True), key=lambda kv: (-kv[1], kv[0]))
    return [(n, float(s)) for n, s in ranked[:top]]
