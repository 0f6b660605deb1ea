"""The two rule levels of the knowledge lint, and volatile-predicate detection.

- **structure**: orphan entities, facts pointing at missing entities, self-loops, cycles of a
  predicate the ontology marks acyclic, validity intervals that end before they start, objects
  that are sentences rather than values;
- **grounding**: predicates checked against the ontology: unknown predicates, subjects and
  objects of the wrong type, untyped entities the ontology can type, several live objects of
  a single-valued predicate, predicates whose values change often but are not declared
  volatile.

Each finding names its records, says what is wrong, and may carry a fix: the changes that
would repair it, as :class:`~memvault.dream.plan.Change` values. Nothing here writes; fixes
reach the store only through the review queue (see :mod:`memvault.lint.runner`).
Pure: the caller passes in a loaded workspace.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal

import igraph as ig

from memvault.dream.plan import Change, Impact, Reason
from memvault.dream.workspace import Workspace
from memvault.kg.model import Entity, EntityType, Fact, normalize_name
from memvault.lint.ontology import Ontology

Level = Literal["structure", "grounding", "llm"]
Severity = Literal["error", "warning", "info"]
LEVELS: tuple[Level, ...] = ("structure", "grounding", "llm")
MAX_OBJECT_CHARS = 200


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


# -- structure ------------------------------------------------------------------------------
def structure(ws: Workspace, onto: Ontology) -> list[Finding]:
    out: list[Finding] = []
    live = ws.live_facts()
    used = {e for ids in ws.mentions.values() for e in ids}
    for f in ws.facts.values():
        used.add(f.subject_id)
        if f.object_id:
            used.add(f.object_id)
    for entity in sorted(ws.entities.values(), key=lambda e: e.id):
        if entity.id not in used:
            out.append(
                Finding(
                    "structure",
                    "orphan_entity",
                    "warning",
                    f"entity {entity.name!r} is named by no episode and no fact",
                    [f"entity:{entity.id}"],
                    fix=[
                        change(
                            entity,
                            "lint.delete_orphan",
                            "nothing refers to it",
                            confidence=0.9,
                            impact="medium",
                            group=f"lint:entity:{entity.id}",
                            delete=True,
                        )
                    ],
                )
            )
    held = [f for f in ws.facts.values() if f.expired_at is None]  # superseded ones too
    for f in sorted(held, key=lambda f: f.id):
        out += _fact_shape(f, ws, onto)
    out += _cycles(live, ws, onto)
    return out


def _fact_shape(f: Fact, ws: Workspace, onto: Ontology) -> list[Finding]:
    out: list[Finding] = []
    ref = [f"fact:{f.id}"]
    if f.subject_id not in ws.entities:
        out.append(
            Finding(
                "structure",
                "dangling_subject",
                "error",
                f"fact {f.statement!r} has a subject entity that does not exist",
                ref,
                {"subject_id": f.subject_id},
                [retire(f, ws, "its subject entity is gone", confidence=0.7, impact="high")],
            )
        )
    if f.object_id and f.object_id not in ws.entities:
        out.append(
            Finding(
                "structure",
                "dangling_object",
                "error",
                f"fact {f.statement!r} points at an object entity that does not exist",
                ref,
                {"object_id": f.object_id},
                [
                    change(
                        f,
                        "lint.unlink_object",
                        "its object entity is gone; the object stays as a value",
                        confidence=0.9,
                        impact="low",
                        group=f"lint:fact:{f.id}",
                        object_id=None,
                    )
                ],
            )
        )
    same = (f.object_id is not None and f.object_id == f.subject_id) or (
        normalize_name(f.subject) == normalize_name(f.object)
    )
    if same and not onto.is_(f.predicate, "reflexive"):
        out.append(
            Finding(
                "structure",
                "self_loop",
                "error",
                f"fact {f.statement!r} relates {f.subject!r} to itself",
                ref,
                {"predicate": f.predicate},
                [
                    retire(
                        f, ws, "a fact relating a thing to itself", confidence=0.85, impact="high"
                    )
                ],
            )
        )
    if f.invalid_at is not None and f.invalid_at <= f.valid_at:
        out.append(
            Finding(
                "structure",
                "inverted_interval",
                "error",
                f"fact {f.statement!r} stops being true ({f.invalid_at.date()}) before it "
                f"starts ({f.valid_at.date()})",
                ref,
                {"valid_at": f.valid_at.isoformat(), "invalid_at": f.invalid_at.isoformat()},
                [
                    retire(
                        f, ws, "its validity ends before it begins", confidence=0.7, impact="high"
                    )
                ],
            )
        )
    if len(f.object) > MAX_OBJECT_CHARS:
        out.append(
            Finding(
                "structure",
                "malformed_object",
                "warning",
                f"fact {f.statement[:60]!r}… has a {len(f.object)}-character object: a "
                "sentence, not a value",
                ref,
                {"object_chars": len(f.object)},
            )
        )
    return out


def _cycles(live: list[Fact], ws: Workspace, onto: Ontology) -> list[Finding]:
    """Strongly connected groups of facts whose predicate the ontology marks acyclic; the
    fix retires the most recently learned fact of the loop."""
    by_predicate: dict[str, list[Fact]] = defaultdict(list)
    for f in live:
        if f.object_id and f.object_id != f.subject_id and onto.is_(f.predicate, "acyclic"):
            by_predicate[f.predicate].append(f)
    out: list[Finding] = []
    for predicate, facts in sorted(by_predicate.items()):
        nodes = sorted({f.subject_id for f in facts} | {f.object_id or "" for f in facts})
        index = {n: i for i, n in enumerate(nodes)}
        g = ig.Graph(
            n=len(nodes),
            edges=[(index[f.subject_id], index[f.object_id or ""]) for f in facts],
            directed=True,
        )
        for component in g.connected_components(mode="strong"):
            if len(component) < 2:
                continue
            members = {nodes[i] for i in component}
            loop = [f for f in facts if f.subject_id in members and f.object_id in members]
            newest = max(loop, key=lambda f: (f.created_at, f.valid_at, f.id))
            names = sorted({ws.entities[m].name for m in members if m in ws.entities})
            out.append(
                Finding(
                    "structure",
                    "cycle",
                    "error",
                    f"{predicate} loops back through {', '.join(names)}; the ontology marks it "
                    "acyclic",
                    [f"fact:{f.id}" for f in sorted(loop, key=lambda f: f.id)],
                    {"predicate": predicate, "entities": names},
                    [
                        retire(
                            newest,
                            ws,
                            f"the most recently learned fact of a {predicate} loop",
                            confidence=0.6,
                            impact="high",
                        )
                    ],
                )
            )
    return out


# -- grounding ------------------------------------------------------------------------------
def grounding(
    ws: Workspace, onto: Ontology, volatile: dict[str, dict[str, Any]] | None = None
) -> list[Finding]:
    out: list[Finding] = []
    live = ws.live_facts()
    unknown: dict[str, list[str]] = defaultdict(list)
    votes: dict[str, Counter[str]] = defaultdict(Counter)  # entity id → types the ontology implies
    for f in sorted(live, key=lambda f: f.id):
        spec = onto.spec(f.predicate)
        if spec is None:
            unknown[f.predicate].append(f.id)
            continue
        subject = ws.entities.get(f.subject_id)
        obj = ws.entities.get(f.object_id) if f.object_id else None
        if subject is not None:
            if subject.type is EntityType.UNKNOWN:
                if spec.domain and len(spec.domain) == 1:
                    votes[subject.id][next(iter(spec.domain))] += 1
            elif not spec.allows_subject(subject.type.value):
                out.append(_mismatch(f, "domain_mismatch", "subject", subject, spec.domain))
        if obj is not None and spec.range not in ("any", "literal"):
            allowed = spec.range
            assert isinstance(allowed, frozenset)
            if obj.type is EntityType.UNKNOWN:
                if len(allowed) == 1:
                    votes[obj.id][next(iter(allowed))] += 1
            elif obj.type.value not in allowed:
                out.append(_mismatch(f, "range_mismatch", "object", obj, allowed))
        elif obj is not None and spec.range == "literal":
            out.append(
                Finding(
                    "grounding",
                    "range_mismatch",
                    "warning",
                    f"{f.predicate} takes a value, but {f.statement!r} links the entity "
                    f"{obj.name!r}",
                    [f"fact:{f.id}"],
                    {"predicate": f.predicate, "range": "literal"},
                )
            )
    for predicate, ids in sorted(unknown.items()):
        out.append(
            Finding(
                "grounding",
                "unknown_predicate",
                "info",
                f"{predicate!r} is not in the ontology ({len(ids)} live fact(s)); add it to "
                "an ontology file to check its types",
                [f"predicate:{predicate}"],
                {"facts": len(ids), "examples": ids[:3]},
            )
        )
    for entity_id, counter in sorted(votes.items()):
        entity = ws.entities[entity_id]
        if len(counter) != 1:
            continue  # the ontology implies different types: leave it to a human
        implied = next(iter(counter))
        out.append(
            Finding(
                "grounding",
                "untyped_entity",
                "info",
                f"{entity.name!r} has no type; the predicates it takes part in say {implied}",
                [f"entity:{entity.id}"],
                {"implied": implied, "facts": counter[implied]},
                [
                    change(
                        entity,
                        "lint.type_entity",
                        f"its {counter[implied]} fact(s) imply {implied}",
                        confidence=0.75,
                        impact="low",
                        group=f"lint:entity:{entity.id}",
                        type=EntityType(implied),
                    )
                ],
            )
        )
    out += _single_valued(live, onto)
    for predicate, evidence in sorted((volatile or {}).items()):
        if not onto.is_(predicate, "volatile"):
            out.append(
                Finding(
                    "grounding",
                    "undeclared_volatile",
                    "info",
                    f"{predicate!r} changes often ({evidence['values']} values for "
                    f"{evidence['subject']!r} within {evidence['days']} days); declare it "
                    "volatile in an ontology file",
                    [f"predicate:{predicate}"],
                    evidence,
                )
            )
    return out


def _mismatch(
    f: Fact, code: str, role: str, entity: Entity, allowed: Iterable[str] | None
) -> Finding:
    return Finding(
        "grounding",
        code,
        "warning",
        f"{f.predicate} expects a {' or '.join(sorted(allowed or []))} {role}, but "
        f"{entity.name!r} is a {entity.type.value}",
        [f"fact:{f.id}"],
        {"predicate": f.predicate, role: entity.name, "type": entity.type.value},
    )


def _single_valued(live: list[Fact], onto: Ontology) -> list[Finding]:
    groups: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for f in live:
        if onto.is_(f.predicate, "single_valued"):
            groups[(f.subject_id, f.predicate)].append(f)
    out = []
    for (_, predicate), facts in sorted(groups.items()):
        objects = sorted({normalize_name(f.object) for f in facts})
        if len(objects) > 1:
            out.append(
                Finding(
                    "grounding",
                    "single_valued_conflict",
                    "warning",
                    f"{facts[0].subject!r} has {len(objects)} live values of single-valued "
                    f"{predicate}: {', '.join(objects[:5])}; the dream's conflict judge "
                    "settles these (memvault dream)",
                    [f"fact:{f.id}" for f in sorted(facts, key=lambda f: f.id)],
                    {"predicate": predicate, "objects": objects[:10]},
                )
            )
    return out


# -- volatile predicates --------------------------------------------------------------------
def volatile_predicates(
    facts: Iterable[Fact],
    candidates: set[str],
    *,
    min_values: int,
    window_days: float,
) -> dict[str, dict[str, Any]]:
    """Single-valued predicates whose value changes often: some subject took at least
    ``min_values`` different values within ``window_days`` (history counts, superseded facts
    included). Multi-valued predicates are not candidates: many values is their nature."""
    series: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for f in facts:
        if f.expired_at is None and f.predicate in candidates:
            series[(f.subject_id, f.predicate)].append(f)
    window = timedelta(days=window_days)
    found: dict[str, dict[str, Any]] = {}
    for (_, predicate), group in sorted(series.items()):
        ordered = sorted(group, key=lambda f: f.valid_at)
        values = [(f.valid_at, normalize_name(f.object)) for f in ordered]
        start = 0
        for end in range(len(values)):
            while values[end][0] - values[start][0] > window:
                start += 1
            distinct = len({v for _, v in values[start : end + 1]})
            best = found.get(predicate, {}).get("values", 0)
            if distinct >= min_values and distinct > best:
                found[predicate] = {
                    "subject": ordered[end].subject,
                    "values": distinct,
                    "days": round((values[end][0] - values[start][0]).total_seconds() / 86400, 1),
                }
    return found
