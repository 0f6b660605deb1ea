"""Changes as values: what a dream (or a maintenance op) proposes, before anything happens.

A :class:`Change` holds the whole record before and after (``None`` before: created; ``None``
after: deleted), so applying it, checking it still applies, and undoing it are the same
three generic moves for every op. One record changes at most once per plan: when two ops
touch it, their reasons are kept in order, the confidence is the lowest and the impact the
highest of theirs.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from memvault.kg.model import Entity, Episode, Fact, Session
from memvault.kg.persona import Attitude, Skill

Impact = Literal["low", "medium", "high"]
_IMPACT_ORDER: dict[str, int] = {"low": 0, "medium": 1, "high": 2}
# records of the graph, and the persona layers' (kept as documents: memvault.persona.layer)
ChangeKind = Literal["episode", "fact", "entity", "session", "attitude", "skill"]
PERSONA_KINDS = ("attitude", "skill")
MODELS: dict[str, type[Session | Episode | Entity | Fact | Attitude | Skill]] = {
    "episode": Episode,
    "fact": Fact,
    "entity": Entity,
    "session": Session,
    "attitude": Attitude,
    "skill": Skill,
}


class Reason(BaseModel):
    op: str = Field(description="The op that proposed it, e.g. consolidate.supersede.")
    why: str
    confidence: float = Field(ge=0, le=1)
    impact: Impact = "low"


class Change(BaseModel):
    kind: ChangeKind
    target_id: str
    before: dict[str, Any] | None = Field(description="The record before; None: created.")
    after: dict[str, Any] | None = Field(description="The record after; None: deleted.")
    reasons: list[Reason]
    group: str | None = Field(
        default=None, description="Changes of one group are approved or rejected together."
    )

    @property
    def op(self) -> str:
        return self.reasons[0].op

    @property
    def confidence(self) -> float:
        return min(r.confidence for r in self.reasons)

    @property
    def impact(self) -> Impact:
        return max((r.impact for r in self.reasons), key=_IMPACT_ORDER.__getitem__)

    @property
    def action(self) -> Literal["create", "update", "delete"]:
        if self.before is None:
            return "create"
        return "delete" if self.after is None else "update"

    def diff(self) -> dict[str, tuple[Any, Any]]:
        """Fields that differ: name → (before, after)."""
        before, after = self.before or {}, self.after or {}
        return {
            k: (before.get(k), after.get(k))
            for k in sorted(set(before) | set(after))
            if before.get(k) != after.get(k)
        }

    def summary(self) -> str:
        if self.action != "update":
            return self.action
        parts = []
        for field, (old, new) in self.diff().items():
            if isinstance(old, float) and isinstance(new, float):
                parts.append(f"{field} {old:.3f}→{new:.3f}")
            else:
                parts.append(f"{field} {_short(old)}→{_short(new)}")
        return ", ".join(parts)


def _short(value: Any) -> str:
    text = "∅" if value is None else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Plan(BaseModel):
    """Everything a run proposes for one namespace, with what it found along the way."""

    run_id: str
    namespace: str
    created_at: datetime
    changes: list[Change] = Field(default_factory=list)
    findings: dict[str, Any] = Field(default_factory=dict)
    communities: dict[str, Any] = Field(
        default_factory=dict, description="The Leiden partition seen by this run, with members."
    )
    discoveries: list[dict[str, Any]] = Field(
        default_factory=list, description="Surprises for the inbox (never part of recall)."
    )

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for change in self.changes:
            for reason in change.reasons:
                out[reason.op] = out.get(reason.op, 0) + 1
        return dict(sorted(out.items()))
