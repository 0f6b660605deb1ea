"""Surprise discovery over the entity graph: what a user might want to hear about.

- ``cross_community``: a new edge (absent from the previous run's graph) joining two
  communities, strong for this graph;
- ``indirect_strong``: two entities with no edge between them but strong two-hop links
  through at least two different entities;
- ``knowledge_gap``: an entity mentioned as often as its peers of the same type, with far
  fewer neighbours than they usually have.

Thresholds are dynamic: a score counts as surprising above mean + k·std of the scores of its
kind in this graph, so a dense namespace and a sparse one both yield a few items, not
hundreds or none. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from memvault.kg.edge_ops import Edge


@dataclass(frozen=True)
class Discovery:
    kind: str
    entities: tuple[str, ...]
    score: float
    evidence: dict[str, object] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """Stable across runs: the same finding is one inbox item, not one per dream."""
        key = f"{self.kind}:{'|'.join(sorted(self.entities))}"
        return "dsc_" + hashlib.blake2b(key.encode(), digest_size=8).hexdigest()


def dynamic_threshold(values: Iterable[float], k: float) -> float:
    data = list(values)
    if len(data) < 2:
        return float("inf")
    return statistics.fmean(data) + k * statistics.pstdev(data)


def cross_community(
    edges: Sequence[Edge],
    membership: Mapping[str, int],
    previous: set[tuple[str, str]] | None,
    k: float,
    *,
    co_mentions: Mapping[tuple[str, str], int] | None = None,
    min_repeats: int = 3,
) -> list[Discovery]:
    """New links across two communities, of two sorts:

    - an edge (composite above the threshold) that is new and strong for this graph;
    - a pair named together repeatedly (``co_mentions`` ≥ ``min_repeats`` and above the
      dynamic cut over every cross-community pair's count) that is no edge: a bridge rarely
      reaches the edge threshold, since the two sides share no neighbours, sessions or
      meaning; that is what makes it a surprise.
    """

    def is_new(pair: tuple[str, str]) -> bool:
        return previous is None or pair not in previous

    def across(a: str, b: str) -> tuple[int, int] | None:
        ca, cb = membership.get(a), membership.get(b)
        return (ca, cb) if ca is not None and cb is not None and ca != cb else None

    cut = dynamic_threshold((e.composite for e in edges), k)
    out = []
    for e in edges:
        sides = across(e.a, e.b)
        if sides and is_new((e.a, e.b)) and e.composite >= cut:
            out.append(
                Discovery(
                    "cross_community",
                    (e.a, e.b),
                    e.composite,
                    {"communities": list(sides), "signals": e.signals, "threshold": round(cut, 4)},
                )
            )
    if not co_mentions:
        return out
    linked = {(e.a, e.b) for e in edges}
    crossing = {pair: n for pair, n in co_mentions.items() if across(*pair)}
    repeats = max(float(min_repeats), dynamic_threshold(crossing.values(), k))
    top = math.log(max(max(co_mentions.values()), 2))
    for (a, b), n in sorted(crossing.items()):
        if n >= repeats and (a, b) not in linked and is_new((a, b)):
            out.append(
                Discovery(
                    "cross_community",
                    (a, b),
                    round(math.log(n) / top, 6),  # the co-occurrence signal of the pair
                    {
                        "communities": list(across(a, b) or ()),
                        "co_mentions": n,
                        "edge": False,
                        "threshold": round(repeats, 2),
                    },
                )
            )
    return out


def indirect_strong(
    nodes: Sequence[str], edges: Sequence[Edge], k: float, *, min_paths: int = 2
) -> list[Discovery]:
    index = {n: i for i, n in enumerate(nodes)}
    n = len(nodes)
    if n < 3 or not edges:
        return []
    rows = [index[e.a] for e in edges] + [index[e.b] for e in edges]
    cols = [index[e.b] for e in edges] + [index[e.a] for e in edges]
    data = [e.composite for e in edges] * 2
    w = sparse.csr_matrix((data, (rows, cols)), shape=(n, n))
    hops = (w @ w).tocoo()
    paths = ((w > 0).astype(np.int32) @ (w > 0).astype(np.int32)).tocsr()
    direct = {(index[e.a], index[e.b]) for e in edges} | {(index[e.b], index[e.a]) for e in edges}
    candidates = [
        (int(i), int(j), float(v))
        for i, j, v in zip(hops.row, hops.col, hops.data, strict=True)
        if i < j and (i, j) not in direct
    ]
    cut = dynamic_threshold((v for _, _, v in candidates), k)
    out = []
    for i, j, v in candidates:
        via = int(paths[i, j])
        if v >= cut and via >= min_paths:
            middle = sorted(nodes[m] for m in set(w[i].indices) & set(w[j].indices))
            out.append(
                Discovery(
                    "indirect_strong",
                    (nodes[i], nodes[j]),
                    round(v, 6),
                    {"via": middle, "paths": via, "threshold": round(cut, 4)},
                )
            )
    return out


def knowledge_gaps(
    nodes: Sequence[str],
    types: Mapping[str, str],
    mentions: Mapping[str, int],
    edges: Sequence[Edge],
    k: float,
    *,
    co_mentions: Mapping[tuple[str, str], int] | None = None,
    min_peers: int = 3,
) -> list[Discovery]:
    """``co_mentions`` (optional): with it, an entity named beside as many others as its
    peers is no gap, however weak its edges: it is connected, just not strongly."""
    degree: dict[str, int] = defaultdict(int)
    for e in edges:
        degree[e.a] += 1
        degree[e.b] += 1
    partners: dict[str, int] = defaultdict(int)
    for a, b in co_mentions or {}:
        partners[a] += 1
        partners[b] += 1
    by_type: dict[str, list[str]] = defaultdict(list)
    for node in nodes:
        by_type[types.get(node, "unknown")].append(node)
    # a type with too few members to compare among is compared with everyone: the one
    # organisation among people is still a gap when it is busy and alone
    few = [m for members in by_type.values() if len(members) < min_peers + 1 for m in members]
    groups = [(k, ms, ms) for k, ms in by_type.items() if len(ms) >= min_peers + 1]
    if few and len(nodes) >= min_peers + 1:
        groups.append(("any", few, list(nodes)))
    out = []
    for kind, judged, members in groups:
        usual = statistics.median(degree[m] for m in members)
        busy = statistics.median(mentions.get(m, 0) for m in members)
        usual_partners = statistics.median(partners[m] for m in members) if co_mentions else 0
        # the shortfall of neighbours, relative to what peers usually have
        shortfall = {m: (usual - degree[m]) / usual for m in members if usual > 0}
        cut = max(dynamic_threshold(shortfall.values(), k), 0.5)
        for m in judged:
            gap = shortfall.get(m, 0.0)
            alone = not co_mentions or partners[m] <= usual_partners * (1 - cut)
            if gap >= cut and mentions.get(m, 0) >= busy and alone:
                out.append(
                    Discovery(
                        "knowledge_gap",
                        (m,),
                        round(gap, 4),
                        {
                            "type": types.get(m, "unknown") if kind == "any" else kind,
                            "neighbours": degree[m],
                            "peers_usually": usual,
                            "mentions": mentions.get(m, 0),
                        },
                    )
                )
    return out
