"""Each discovery kind fires on its planted case and stays quiet on a control."""

from __future__ import annotations

import itertools

from memvault.kg.discovery import cross_community, indirect_strong, knowledge_gaps
from memvault.kg.edge_ops import Edge


def edge(a: str, b: str, w: float) -> Edge:
    a, b = min(a, b), max(a, b)
    return Edge(a, b, w, {})


def two_cliques(bridge: float | None) -> tuple[list[Edge], dict[str, int]]:
    left = [f"l{i}" for i in range(5)]
    right = [f"r{i}" for i in range(5)]
    edges = [edge(a, b, 0.5) for a, b in itertools.combinations(left, 2)]
    edges += [edge(a, b, 0.5) for a, b in itertools.combinations(right, 2)]
    if bridge is not None:
        edges.append(edge("l0", "r0", bridge))
    membership = {n: 0 for n in left} | {n: 1 for n in right}
    return edges, membership


def test_cross_community_fires_on_a_new_strong_bridge_only() -> None:
    edges, membership = two_cliques(bridge=0.9)
    previous = {(e.a, e.b) for e in edges if "r0" not in (e.a, e.b) or "l0" not in (e.a, e.b)}
    found = cross_community(edges, membership, previous - {("l0", "r0")}, k=1.0)
    assert [d.entities for d in found] == [("l0", "r0")]
    control, membership = two_cliques(bridge=None)
    assert cross_community(control, membership, None, k=1.0) == []
    # the same bridge seen before is not new
    assert cross_community(edges, membership, {(e.a, e.b) for e in edges}, k=1.0) == []


def test_a_repeated_pair_across_communities_is_a_bridge_below_the_edge_threshold() -> None:
    edges, membership = two_cliques(bridge=None)  # no edge joins the two sides
    co = {(e.a, e.b): 4 for e in edges} | {("l1", "r2"): 1, ("l2", "r3"): 1, ("l3", "r4"): 1}
    planted = {**co, ("l0", "r0"): 5}
    found = cross_community(edges, membership, set(), 1.0, co_mentions=planted, min_repeats=3)
    assert [(d.entities, d.evidence["co_mentions"]) for d in found] == [(("l0", "r0"), 5)]
    # control: the one-off cross pairs alone are no bridge; nor is a pair seen by a past run
    assert cross_community(edges, membership, set(), 1.0, co_mentions=co) == []
    seen = cross_community(edges, membership, {("l0", "r0")}, 1.0, co_mentions=planted)
    assert seen == []


def test_indirect_strong_fires_on_a_missing_link_with_several_strong_paths() -> None:
    nodes = ["a", "b", "c", "m1", "m2", "x", "y", "z", "w"]
    edges = [edge("a", "m1", 0.9), edge("m1", "c", 0.9), edge("a", "m2", 0.9), edge("m2", "c", 0.9)]
    edges += [edge("x", "y", 0.4), edge("y", "z", 0.4), edge("z", "w", 0.4), edge("b", "x", 0.4)]
    found = {d.entities: d for d in indirect_strong(nodes, edges, k=1.0)}
    # a 4-cycle a–m1–c–m2: both of its diagonals are missing links with two strong paths
    assert set(found) == {("a", "c"), ("m1", "m2")}
    assert found[("a", "c")].evidence["via"] == ["m1", "m2"]
    control = [edge("x", "y", 0.4), edge("y", "z", 0.4), edge("z", "w", 0.4), edge("b", "x", 0.4)]
    assert indirect_strong(nodes, control, k=1.0) == []


def test_knowledge_gap_fires_on_a_busy_but_unconnected_peer() -> None:
    people = [f"p{i}" for i in range(6)]
    places = [f"place{i}" for i in range(6)]
    edges = [edge(p, q, 0.5) for p in people[:5] for q in places[:4]]
    types = {p: "person" for p in people} | {q: "place" for q in places}
    mentions = {p: 10 for p in people} | {q: 3 for q in places} | {"place4": 1, "place5": 1}
    found = knowledge_gaps(people + places, types, mentions, edges, k=1.0)
    assert [d.entities for d in found] == [("p5",)]
    assert found[0].evidence["neighbours"] == 0 and found[0].evidence["peers_usually"] == 4
    # named beside as many others as its peers: connected, only weakly; no gap
    co = {(p, q): 1 for p in people for q in places[:4]}
    assert knowledge_gaps(people + places, types, mentions, edges, k=1.0, co_mentions=co) == []
    quiet = dict(mentions, p5=1)  # rarely mentioned: few neighbours is no surprise
    assert [
        d
        for d in knowledge_gaps(people + places, types, quiet, edges, k=1.0)
        if d.entities == ("p5",)
    ] == []


def test_a_type_too_rare_to_have_peers_is_compared_with_everyone() -> None:
    """Once names are typed, the one organisation among people has no peers of its kind:
    busy and alone, it is still a gap (it was missed when only the types were compared)."""
    people = [f"p{i}" for i in range(6)]
    edges = [edge(a, b, 0.5) for a in people for b in people if a < b]
    types = {p: "person" for p in people} | {"acme": "organization", "zed": "unknown"}
    mentions = {p: 6 for p in people} | {"acme": 6, "zed": 1}
    found = knowledge_gaps([*people, "acme", "zed"], types, mentions, edges, k=1.0)
    assert [d.entities for d in found] == [("acme",)]  # zed: rarely named, no surprise
    assert found[0].evidence["type"] == "organization"


def test_discovery_ids_are_stable_and_order_free() -> None:
    edges, membership = two_cliques(bridge=0.9)
    first = cross_community(edges, membership, set(), k=1.0)
    again = cross_community(list(reversed(edges)), membership, set(), k=1.0)
    assert [d.id for d in first] == [d.id for d in again]
