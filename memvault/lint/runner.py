"""Run the lint, cheapest level first, and turn its fixes into review proposals.

Fixes are never applied here. ``propose`` takes them through three stages:

1. **marked**: every finding that carries a fix (high-impact ones are the point);
2. **checked again**: the namespace is read afresh; a fix survives only if every record it
   touches is still exactly as the lint saw it and the rule (for the LLM level: a second,
   separate call about just those facts) still finds the defect;
3. **submitted**: one review item per surviving fix, under a lint run, through the dream's
   applier: nothing changes until a human approves, and an approved fix is journaled and
   can be undone like any dream change.

A proposal is identified by its finding and the state of its records, so linting twice
does not queue the same fix twice, and a rejected fix is not proposed again for the same
state.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from memvault.changes.apply import Applier
from memvault.changes.review import ReviewQueue
from memvault.changes.workspace import Workspace
from memvault.container import Container
from memvault.errors import InvalidInputError
from memvault.kg.ontology import Ontology
from memvault.lint.claims import claims
from memvault.lint.findings import LEVELS, Finding, Level
from memvault.lint.grounding import grounding, volatile_predicates
from memvault.lint.semantic import semantic, still_contradicts
from memvault.lint.structure import structure
from memvault.persona.layer import read_attitudes
from memvault.profile.diary import attention


@dataclass
class LintReport:
    namespace: str
    levels: list[Level]
    findings: list[Finding]
    volatile: dict[str, dict[str, Any]]
    ontology: list[str]
    proposals: dict[str, Any] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        return dict(sorted(Counter(f"{f.level}.{f.code}" for f in self.findings).items()))

    def json(self, limit: int | None = None) -> dict[str, Any]:
        shown = self.findings if limit is None else self.findings[:limit]
        return {
            "namespace": self.namespace,
            "levels": self.levels,
            "ontology": self.ontology,
            "counts": self.counts(),
            "by_severity": dict(Counter(f.severity for f in self.findings)),
            "volatile_predicates": self.volatile,
            "findings": [f.json() for f in shown],
            "shown": len(shown),
            "total": len(self.findings),
            "proposals": self.proposals,
        }


def parse_levels(levels: Sequence[str] | None) -> list[Level]:
    if not levels:
        return list(LEVELS)
    out: list[Level] = []
    for name in levels:
        if name not in LEVELS:
            raise InvalidInputError(
                f"unknown lint level {name!r}", field="level", hint=f"one of {', '.join(LEVELS)}"
            )
        out.append(name)
    return sorted(set(out), key=LEVELS.index)


def single_valued(c: Container, onto: Ontology, predicates: set[str]) -> set[str]:
    """Predicates present in a namespace that hold one object at a time, by settings or
    ontology."""
    configured = set(c.settings.dream.consolidate.single_valued_predicates)
    return {p for p in predicates if p in configured or onto.is_(p, "single_valued")}


def detect_volatile(c: Container, ws: Workspace, onto: Ontology) -> dict[str, dict[str, Any]]:
    s = c.settings.lint
    facts = list(ws.facts.values())
    return volatile_predicates(
        facts,
        single_valued(c, onto, {f.predicate for f in facts}),
        min_values=s.volatile_min_values,
        window_days=s.volatile_window_days,
    )


class Linter:
    def __init__(self, c: Container, onto: Ontology):
        self.c, self.onto = c, onto

    def run(self, namespace: str, now: datetime, levels: Sequence[str] | None = None) -> LintReport:
        chosen = parse_levels(levels)
        ws = Workspace.load(self.c.store, namespace, now)
        return self.check(ws, chosen)

    def check(self, ws: Workspace, levels: Sequence[Level]) -> LintReport:
        s = self.c.settings.lint
        volatile = detect_volatile(self.c, ws, self.onto)
        findings: list[Finding] = []
        if "structure" in levels:
            findings += structure(ws, self.onto)
        if "grounding" in levels:
            findings += grounding(ws, self.onto, volatile)
        if "claims" in levels:
            findings += self._claims(ws)
        if "llm" in levels:
            findings += semantic(
                ws, self.onto, self.c.llm, max_subjects=s.llm_max_subjects, batch=s.llm_batch
            )
        order = {"error": 0, "warning": 1, "info": 2}
        findings.sort(key=lambda f: (order[f.severity], LEVELS.index(f.level), f.code, f.id))
        return LintReport(
            namespace=ws.namespace,
            levels=list(levels),
            findings=findings,
            volatile=volatile,
            ontology=list(self.onto.sources),
        )

    def _claims(self, ws: Workspace) -> list[Finding]:
        """Attitudes against the last ``claims_window_days`` of the diary's attention."""
        s = self.c.settings.lint
        today = ws.now.astimezone(UTC).date()
        days = {today - timedelta(days=n) for n in range(s.claims_window_days)}
        seen: Counter[str] = Counter()
        for mentions, asked, _ in attention(self.c.store, ws.namespace, days).values():
            seen.update(mentions)
            seen.update(asked)
        views = read_attitudes(list(ws.attitudes.values()), ws.now, self.c.settings.persona)
        return claims(
            views,
            seen,
            window_days=s.claims_window_days,
            min_activity=s.claims_min_activity,
            min_mentions=s.claims_min_mentions,
        )

    def propose(self, report: LintReport, now: datetime) -> dict[str, Any]:
        """The three stages; returns what each did, with the review item ids."""
        marked = [f for f in report.findings if f.fix]
        fresh = Workspace.load(self.c.store, report.namespace, now)
        recheck = {
            f.id for f in self.check(fresh, [lv for lv in report.levels if lv != "llm"]).findings
        }
        confirmed: list[Finding] = []
        dropped: list[dict[str, str]] = []
        for f in marked:
            why = self._recheck(f, fresh, recheck)
            if why:
                dropped.append({"finding": f.id, "why": why})
            else:
                confirmed.append(f)
        dream = self.c.settings.dream
        queue = ReviewQueue(Applier(self.c.store, self.c.embedder, dream.consolidate, dream.review))
        run_id = f"lint_{now.strftime('%Y%m%dT%H%M%S')}_{uuid.uuid4().hex[:6]}"
        items = [
            (_proposal_id(f), f"lint {f.level}.{f.code}: {f.message}", f.fix) for f in confirmed
        ]
        submitted = queue.submit(
            report.namespace,
            run_id,
            items,
            now,
            {"kind": "lint", "counts": report.counts(), "levels": report.levels},
        )
        report.proposals = {
            "run_id": run_id if submitted else None,
            "marked": len(marked),
            "confirmed": len(confirmed),
            "dropped": dropped,
            "submitted": len(submitted),
            "already_queued": len(confirmed) - len(submitted),
            "review_ids": submitted,
        }
        return report.proposals

    def _recheck(self, f: Finding, fresh: Workspace, recheck: set[str]) -> str | None:
        """Why a marked fix no longer stands, or None when it does."""
        for ch in f.fix:
            current = fresh.get(ch.kind, ch.target_id)
            if (current.model_dump(mode="json") if current else None) != ch.before:
                return f"{ch.kind} {ch.target_id} changed since the lint read it"
        if f.level == "llm":
            if not still_contradicts(f, fresh, self.onto, self.c.llm):
                return "asked again, the model no longer finds this contradiction"
        elif f.id not in recheck:
            return "the rule no longer finds this defect"
        return None


def _proposal_id(f: Finding) -> str:
    state = json.dumps([c.before for c in f.fix], sort_keys=True, default=str)
    digest = hashlib.blake2b(f"{f.id}:{state}".encode(), digest_size=8).hexdigest()
    return f"rv_{digest}"
