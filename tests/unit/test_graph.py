"""Composite edges and Leiden communities on planted graphs (pure, no I/O)."""

from __future__ import annotations

import itertools
import random

import numpy as np

from memvault.config import GraphSettings
from memvault.kg.communities import leiden, scan
from memvault.kg.edge_ops import composite_edges, type_affinity


def edges_for(
    mentions: dict[str, list[str]],
    sessions: dict[str, str],
    vectors: dict[str, np.ndarray],
    types: dict[str, str] | None = None,
):  # type: ignore[no-untyped-def]
    ids = sorted({e for ents in mentions.values() for e in ents})
    s = GraphSettings()
    return composite_edges(
        ids,
        [(types or {}).get(e, "unknown") for e in ids],
        mentions,
        sessions,
        vectors,
        s,
    )


def unit(*v: float) -> np.ndarray:
    a = np.array(v, dtype=np.float32)
    return a / np.linalg.norm(a)


def test_a_single_co_occurrence_is_dropped_a_repeated_close_one_kept() -> None:
    mentions = {
        "e1": ["espresso", "coffee"],
        "e2": ["espresso", "coffee"],
        "e3": ["espresso", "coffee", "tax"],  # tax shows up once, by chance
        "e4": ["tax", "deadline"],
        "e5": ["tax", "deadline"],
    }
    sessions = {"e1": "s1", "e2": "s2", "e3": "s3", "e4": "s4", "e5": "s5"}
    vectors = {
        "espresso": unit(1, 0.2, 0),
        "coffee": unit(1, 0.3, 0),
        "tax": unit(0, 0, 1),
        "deadline": unit(0, 0.4, 1),
    }
    found = {(e.a, e.b): e for e in edges_for(mentions, sessions, vectors)}
    assert ("coffee", "espresso") in found
    assert ("deadline", "tax") in found
    assert ("coffee", "tax") not in found and ("espresso", "tax") not in found
    kept = found[("coffee", "espresso")]
    assert set(kept.signals) == {
        "co_occurrence",
        "session_overlap",
        "adamic_adar",
        "type_affinity",
        "semantic",
    }
    assert kept.signals["co_occurrence"] == 1.0 and kept.signals["semantic"] > 0.9


def test_type_affinity_is_symmetric_with_a_default() -> None:
    prior = {"person|place": 0.8}
    assert type_affinity(prior, "place", "person", 0.5) == 0.8
    assert type_affinity(prior, "thing", "event", 0.5) == 0.5


def planted(
    groups: int, size: int, bridges: int, seed: int = 1
) -> tuple[dict[str, list[str]], dict[str, str], list[list[str]]]:
    rng = random.Random(seed)
    members = [[f"g{g}n{i}" for i in range(size)] for g in range(groups)]
    mentions: dict[str, list[str]] = {}
    sessions: dict[str, str] = {}
    n = 0
    for g, group in enumerate(members):
        for a, b in itertools.combinations(group, 2):
            if rng.random() < 0.7:
                for _ in range(rng.randint(2, 4)):
                    mentions[f"e{n}"] = [a, b]
                    sessions[f"e{n}"] = f"s{g}-{rng.randint(0, 3)}"
                    n += 1
    for _ in range(bridges):
        g1, g2 = rng.sample(range(groups), 2)
        mentions[f"e{n}"] = [rng.choice(members[g1]), rng.choice(members[g2])]
        sessions[f"e{n}"] = f"x{n}"
        n += 1
    return mentions, sessions, members


def test_leiden_recovers_planted_communities() -> None:
    mentions, sessions, truth = planted(groups=4, size=12, bridges=6)
    edges = edges_for(mentions, sessions, {})
    nodes = sorted({e for ents in mentions.values() for e in ents})
    found = leiden(nodes, edges, resolution=1.0)
    assert sorted(map(sorted, found.communities)) == sorted(map(sorted, truth))
    assert found.modularity > 0.5
    again = leiden(nodes, edges, resolution=1.0)
    assert again.communities == found.communities  # deterministic


def test_resolution_scan_moves_from_few_to_many_communities() -> None:
    mentions, sessions, _ = planted(groups=4, size=12, bridges=30)
    edges = edges_for(mentions, sessions, {})
    nodes = sorted({e for ents in mentions.values() for e in ents})
    counts = [len(p.communities) for p in scan(nodes, edges, [0.05, 1.0, 8.0])]
    assert counts[0] <= counts[1] <= counts[2] and counts[0] < counts[2]


def test_one_sentence_never_makes_an_edge_two_episodes_or_two_signals_do() -> None:
    """31.2: an edge needs evidence beyond one co-mention: the same pair in two separate
    episodes, or two independent signals (here a common neighbour and close meaning)."""
    close = {"kafka": unit(1, 0.1, 0), "snowflake": unit(1, 0.2, 0), "spark": unit(1, 0.15, 0)}
    once = {"e1": ["kafka", "snowflake"]}  # types agree, meaning agrees, one sentence
    types = {"kafka": "tool", "snowflake": "tool"}
    assert edges_for(once, {"e1": "s1"}, close, types) == []
    off = GraphSettings(edge_evidence=False)
    ids = ["kafka", "snowflake"]
    loose = composite_edges(ids, ["tool", "tool"], once, {"e1": "s1"}, close, off)
    assert [(e.a, e.b) for e in loose] == [("kafka", "snowflake")]  # what the rule stops

    twice = {"e1": ["kafka", "snowflake"], "e2": ["kafka", "snowflake"]}
    found = edges_for(twice, {"e1": "s1", "e2": "s2"}, close, types)
    assert [(e.a, e.b) for e in found] == [("kafka", "snowflake")]

    # once together, but a common neighbour (spark, named with each elsewhere) and meaning
    neighbour = {**once, "e2": ["kafka", "spark"], "e3": ["snowflake", "spark"]}
    found = {(e.a, e.b) for e in edges_for(neighbour, {"e1": "s1"}, close, types)}
    assert ("kafka", "snowflake") in found
