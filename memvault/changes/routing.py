"""Routing: which proposed changes apply on their own and which wait for a human, and why.

A change group waits for review when any change in it has

- ``low_confidence``: confidence at or below its op's threshold (``auto_approve_confidence``,
  or the calibrated one: :mod:`memvault.changes.policy`);
- ``high_impact``: impact above ``review.max_auto_impact``;
- ``large_batch``: a merging, superseding or deleting op proposed more than
  ``max_auto_per_op`` changes in the run (low-impact ops such as decay and TTL never crowd);
- ``sensitive``: it deletes or retires a user-type memory, or changes the persona layers;
- ``conflicting_verdicts``: a human rejected the same op on the same record before (the
  dream must not overrule a person by proposing it again with more confidence).

Every reason is kept on the review item (code and words), so the queue can be listed and
calibrated by reason. Pure functions of the changes, the settings and the thresholds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from memvault.changes.plan import Change
from memvault.config import ConsolidateSettings, ReviewSettings

REASONS = ("low_confidence", "high_impact", "large_batch", "sensitive", "conflicting_verdicts")
Rejected = Mapping[tuple[str, str, str], str]  # (kind, target id, op) → the rejected item
_IMPACT = {"low": 0, "medium": 1, "high": 2}


def triage(
    changes: Sequence[Change],
    s: ConsolidateSettings,
    review: ReviewSettings | None = None,
    thresholds: Mapping[str, float] | None = None,
    rejected: Rejected | None = None,
) -> tuple[list[Change], list[tuple[list[Change], list[dict[str, str]]]]]:
    """(auto-approved changes, [(review group, why it waits)])."""
    crowded_ops = crowded(changes, s)
    groups: dict[str, list[Change]] = {}
    for c in changes:
        groups.setdefault(c.group or f"{c.kind}:{c.target_id}", []).append(c)
    auto: list[Change] = []
    queued: list[tuple[list[Change], list[dict[str, str]]]] = []
    for members in groups.values():
        why = reasons(members, s, review, thresholds, crowded_ops, rejected)
        if why:
            queued.append((members, why))
        else:
            auto.extend(members)
    return auto, queued


def route(
    changes: Sequence[Change],
    s: ConsolidateSettings,
    review: ReviewSettings | None = None,
    thresholds: Mapping[str, float] | None = None,
    rejected: Rejected | None = None,
) -> tuple[list[Change], list[list[Change]]]:
    """(auto-approved changes, review groups)."""
    auto, queued = triage(changes, s, review, thresholds, rejected)
    return auto, [members for members, _ in queued]


def reasons(
    members: Sequence[Change],
    s: ConsolidateSettings,
    review: ReviewSettings | None = None,
    thresholds: Mapping[str, float] | None = None,
    crowded: set[str] | None = None,
    rejected: Rejected | None = None,
) -> list[dict[str, str]]:
    """Why this group waits for a human: ``[{"code", "text"}]``, empty when it need not."""
    review = review or ReviewSettings()
    thresholds = thresholds or {}
    found: dict[str, str] = {}
    for c in members:
        limit = thresholds.get(c.op, s.auto_approve_confidence)
        if c.confidence <= limit and "low_confidence" not in found:
            found["low_confidence"] = f"confidence {c.confidence:.2f} ≤ {limit:g} ({c.op})"
        if _IMPACT[c.impact] > _IMPACT[review.max_auto_impact]:
            found.setdefault("high_impact", f"{c.impact} impact ({c.op})")
        if crowded and c.op in crowded and c.impact != "low":
            found.setdefault("large_batch", f"more than {s.max_auto_per_op} {c.op} in a run")
        if _sensitive(c):
            found.setdefault("sensitive", f"{c.op} touches {_what(c)}")
        before = (rejected or {}).get((c.kind, c.target_id, c.op))
        if before:
            found.setdefault(
                "conflicting_verdicts", f"a human rejected {c.op} on this record (review {before})"
            )
    return [{"code": code, "text": found[code]} for code in REASONS if code in found]


def review_reason(members: Sequence[Change], s: ConsolidateSettings, **kw: Any) -> str:
    return "; ".join(r["text"] for r in reasons(members, s, **kw)) or "proposed"


def crowded(changes: Sequence[Change], s: ConsolidateSettings) -> set[str]:
    per_op = Counter(c.op for c in changes if c.impact != "low")
    return {op for op, n in per_op.items() if n > s.max_auto_per_op}


def _sensitive(c: Change) -> bool:
    if c.op.startswith("persona."):
        return True
    before = c.before or {}
    if c.kind != "episode" or before.get("type") != "user":
        return False
    return c.after is None or (
        c.after.get("expired_at") is not None and not before.get("expired_at")
    )


def _what(c: Change) -> str:
    return "the persona layers" if c.op.startswith("persona.") else "a user-type memory"
