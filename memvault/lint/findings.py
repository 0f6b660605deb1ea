"""What the lint reports: a finding names its records, says what is wrong, and may carry a
fix — the changes that would repair it, as :class:`~memvault.changes.plan.Change` values. Nothing
here writes; fixes reach the store only through the review queue (``memvault.lint.runner``)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

from memvault.changes.plan import Change, Impact, Reason
from memvault.changes.workspace import Workspace
from memvault.kg.model import Entity, Fact

Level = Literal["structure", "grounding", "claims", "llm"]
Severity = Literal["error", "warning", "info"]
LEVELS: tuple[Level, ...] = ("structure", "grounding", "claims", "llm")


@dataclass
class Finding:
    level: Level
    code: str
    severity: Severity
    message: str
    records: list[str]  # "kind:id"
    evidence: dict[str, Any] = field(default_factory=dict)
    fix: list[Change] = field(default_factory=list)

    @property
    def id(self) -> str:
        """Stable for the same defect on the same records."""
        key = f"{self.level}:{self.code}:{'|'.join(sorted(self.records))}"
        return "lint_" + hashlib.blake2b(key.encode(), digest_size=8).hexdigest()

    @property
    def impact(self) -> Impact:
        return self.fix[0].impact if self.fix else "low"

    def json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "level": self.level,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "records": self.records,
            "evidence": self.evidence,
            "fix": [
                {
                    "kind": c.kind,
                    "target_id": c.target_id,
                    "action": c.action,
                    "summary": c.summary(),
                    "why": c.reasons[0].why,
                    "confidence": c.confidence,
                    "impact": c.impact,
                }
                for c in self.fix
            ],
        }


def change(
    record: Fact | Entity,
    op: str,
    why: str,
    *,
    confidence: float,
    impact: Impact,
    group: str,
    delete: bool = False,
    **fields: Any,
) -> Change:
    before = record.model_dump(mode="json")
    after = None
    if not delete:
        changed = record.model_copy(deep=True)
        for name, value in fields.items():
            setattr(changed, name, value)
        after = changed.model_dump(mode="json")
    return Change(
        kind="fact" if isinstance(record, Fact) else "entity",
        target_id=record.id,
        before=before,
        after=after,
        reasons=[Reason(op=op, why=why, confidence=confidence, impact=impact)],
        group=group,
    )


def retire(fact: Fact, ws: Workspace, why: str, *, confidence: float, impact: Impact) -> Change:
    """The lint's one repair of a wrong fact: the vault retires it (kept, no longer live)."""
    return change(
        fact,
        "lint.retire_fact",
        why,
        confidence=confidence,
        impact=impact,
        group=f"lint:fact:{fact.id}",
        expired_at=ws.now,
    )
