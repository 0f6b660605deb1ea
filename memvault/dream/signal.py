"""Stage 2, signal: contradictions, duplicates and what the graph says is central."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import combinations
from typing import Any

from memvault.changes.workspace import Workspace
from memvault.kg.centrality import personalized_pagerank
from memvault.kg.model import normalize_name
from memvault.kg.temporal_conflict import Conflict, duplicate_groups, find_conflicts


def signal(
    ws: Workspace,
    new_episode_ids: list[str],
    *,
    single_valued: set[str],
    volatile: set[str],
    opposites: Iterable[frozenset[str]] = (),
) -> tuple[dict[str, Any], list[Conflict], list[list[str]]]:
    """Findings, the conflicts to judge, and groups of duplicate fact ids (oldest first).
    ``single_valued``: predicates holding one object at a time (settings and ontology);
    ``volatile``: those whose value changes often (declared or detected), flagged to the
    judge; ``opposites``: predicate pairs that contradict about one object (ontology)."""
    live = ws.live_facts()
    conflicts = find_conflicts(live, single_valued, volatile, opposites)
    duplicates = [[f.id for f in g] for g in duplicate_groups(live)]
    findings = {
        "conflict_count": len(conflicts),
        "volatile_conflicts": sum(c.volatile for c in conflicts),
        "conflicts": [c.describe() for c in conflicts[:100]],  # the first hundred, described
        "duplicate_fact_groups": len(duplicates),
        "similar_entities": similar_entities(ws),
        "central_entities": central_entities(ws, new_episode_ids),
    }
    return findings, conflicts, duplicates


def similar_entities(ws: Workspace, limit: int = 50) -> list[dict[str, str]]:
    """Entity pairs that may be one entity (one name is the start of the other, e.g. "Ana"
    and "Ana Duarte"). Reported, not merged: an entity merge rewires facts and mentions and
    is for a human to confirm. In sorted order the longer names of a prefix follow it
    directly, so this is a scan, not a comparison of every pair. Never two kinds of thing
    (a person and an organisation), nor a place and a longer name: what starts with a
    place's name is in it or named after it ("Leeds" and "Leeds General Infirmary", "York"
    and "York 10k")."""
    names = sorted(
        (normalize_name(e.name), e.id) for e in ws.entities.values() if normalize_name(e.name)
    )
    pairs: list[dict[str, str]] = []
    for n, (short, short_id) in enumerate(names):
        for longer, longer_id in names[n + 1 :]:
            if not longer.startswith(short + " "):
                if not longer.startswith(short):
                    break
                continue
            a, b = ws.entities[short_id], ws.entities[longer_id]
            if len({a.type, b.type} - {"unknown"}) > 1 or a.type == "place":
                continue
            pairs.append({"a": a.name, "b": b.name})
            if len(pairs) >= limit:
                return pairs
    return pairs


def central_entities(ws: Workspace, new_episode_ids: list[str], top: int = 10) -> list[Any]:
    """Personalised PageRank over entities (edges: facts and co-mentions), seeded with the
    entities of episodes new since the last dream, each as often as they name it (what the
    new memories keep coming back to weighs more). The namespace's own speakers are left
    out of the graph: named in nearly every turn, they are hubs through which a name said
    once beside them ("Bach", in one line of a LoCoMo chat) ranked as central as what the
    chat keeps coming back to. Each entry says how many memories mention it."""
    speakers = ws.speaker_entities()
    weights: Counter[tuple[str, str]] = Counter()
    for f in ws.live_facts():
        if f.object_id and not {f.subject_id, f.object_id} & speakers:
            weights[tuple(sorted((f.subject_id, f.object_id)))] += 2  # type: ignore[index]
    for entity_ids in ws.mentions.values():
        for a, b in combinations(sorted(set(entity_ids) - speakers), 2):
            weights[(a, b)] += 1
    seeds = Counter(e for i in new_episode_ids for e in ws.mentions.get(i, ()) if e not in speakers)
    ranked = personalized_pagerank(
        sorted(set(ws.entities) - speakers),
        [(a, b, float(w)) for (a, b), w in sorted(weights.items())],
        seeds,
        top=top,
    )
    return [
        {
            "entity": ws.entities[i].name,
            "score": round(s, 5),
            "mentions": ws.entities[i].mention_count,
        }
        for i, s in ranked
    ]
