"""Routing: which proposed changes apply on their own and which wait for a human.

A change group needs review when any of its changes has confidence at or below
``auto_approve_confidence``, high impact, or comes from a medium-impact op (merge,
supersede, delete) that proposed more than ``max_auto_per_op`` changes in the run. The rest
is auto-approved. Pure functions of the changes and the settings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from memvault.changes.plan import Change
from memvault.config import ConsolidateSettings


def route(
    changes: Sequence[Change], s: ConsolidateSettings
) -> tuple[list[Change], list[list[Change]]]:
    """(auto-approved changes, review groups)."""
    # only ops that delete, merge or supersede crowd; low-impact ones (decay, TTL) are many
    # by nature on a first dream over a long history
    per_op = Counter(c.op for c in changes if c.impact != "low")
    crowded = {op for op, n in per_op.items() if n > s.max_auto_per_op}
    groups: dict[str, list[Change]] = {}
    for c in changes:
        groups.setdefault(c.group or f"{c.kind}:{c.target_id}", []).append(c)
    auto: list[Change] = []
    review: list[list[Change]] = []
    for members in groups.values():
        if any(
            c.confidence <= s.auto_approve_confidence
            or c.impact == "high"
            or (c.op in crowded and c.impact != "low")
            for c in members
        ):
            review.append(members)
        else:
            auto.extend(members)
    return auto, review


def review_reason(members: Sequence[Change], s: ConsolidateSettings) -> str:
    low = min(c.confidence for c in members)
    if low <= s.auto_approve_confidence:
        return f"confidence {low:.2f} ≤ {s.auto_approve_confidence:g}"
    if any(c.impact == "high" for c in members):
        return "high impact"
    return f"more than {s.max_auto_per_op} changes of one op in a run"
