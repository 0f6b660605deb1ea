"""Stage 3, reflect: the LLM reads a statistics snapshot and names insights and gaps.

Offline, :func:`derive_reflection` derives them from the same statistics, deterministically.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memvault.llm.port import LLM
from memvault.llm.prompts import Reflection, reflect_v1


def snapshot(
    orient: Mapping[str, Any], signal: Mapping[str, Any], facts_by_entity: Mapping[str, int]
) -> dict[str, Any]:
    """What reflect sees: counts, session shape, conflicts, central entities with how many
    facts each has."""
    return {
        "new": orient["new"],
        "totals": orient["totals"],
        "sessions": orient["sessions"],
        "conflicts": signal["conflict_count"],
        "duplicate_fact_groups": signal["duplicate_fact_groups"],
        "similar_entities": len(signal["similar_entities"]),
        "similar_pairs": [f"{p['a']} / {p['b']}" for p in signal["similar_entities"][:3]],
        "central_entities": [
            {**c, "facts": facts_by_entity.get(c["entity"], 0)} for c in signal["central_entities"]
        ],
    }


OFTEN = 3  # "comes up often": named in at least this many memories


def derive_reflection(stats: Mapping[str, Any]) -> Reflection:
    insights: list[str] = []
    gaps: list[str] = []
    new = stats["new"]
    loose = new.get("days_without_session", 0)
    days = f" and {loose} day(s) without a session" if loose else ""
    insights.append(
        f"{new['episodes']} new memories in {new['sessions']} session(s){days} since the last dream"
    )
    # the namespace's own speakers are not in the list (dream.signal.central_entities)
    central = stats["central_entities"]
    if central:
        names = ", ".join(c["entity"] for c in central[:3])
        insights.append(f"most central now: {names}")
    if stats["conflicts"]:
        insights.append(f"{stats['conflicts']} contradiction(s) between facts to resolve")
    if stats["duplicate_fact_groups"]:
        insights.append(f"{stats['duplicate_fact_groups']} fact(s) stated more than once")
    for c in central[:5]:
        if c["facts"] == 0 and c.get("mentions", OFTEN) >= OFTEN:
            gaps.append(f"{c['entity']} comes up often, but no fact names it")
    if stats["similar_entities"]:
        shown = list(stats.get("similar_pairs", []))
        more = stats["similar_entities"] - len(shown)
        named = ": " + "; ".join(shown) + (f" and {more} more" if more > 0 else "") if shown else ""
        gaps.append(f"{stats['similar_entities']} pair(s) of entities may be the same one{named}")
    return Reflection(insights=insights[:5], gaps=gaps[:5])


def reflect(llm: LLM, stats: Mapping[str, Any]) -> Reflection:
    return llm.complete(reflect_v1(stats), call_site="dream.reflect")
