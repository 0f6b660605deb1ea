"""The grounding level of the lint — predicates checked against the ontology: unknown
predicates, subjects and objects of the wrong type, untyped entities the ontology can type,
several live objects of a single-valued predicate, predicates whose values change often but are
not declared volatile — and volatile-predicate detection. Pure."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from memvault.changes.workspace import Workspace
from memvault.kg.model import Entity, EntityType, Fact, normalize_name
from memvault.kg.ontology import Ontology
from memvault.lint.findings import Finding, change


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
            if subject.type == EntityType.UNKNOWN:
                if spec.domain and len(spec.domain) == 1:
                    votes[subject.id][next(iter(spec.domain))] += 1
            elif not spec.allows_subject(subject.type):
                out.append(_mismatch(f, "domain_mismatch", "subject", subject, spec.domain))
        if obj is not None and spec.range not in ("any", "literal"):
            allowed = spec.range
            assert isinstance(allowed, frozenset)
            if obj.type == EntityType.UNKNOWN:
                if len(allowed) == 1:
                    votes[obj.id][next(iter(allowed))] += 1
            elif obj.type not in allowed:
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
        f"{entity.name!r} is a {entity.type}",
        [f"fact:{f.id}"],
        {"predicate": f.predicate, role: entity.name, "type": entity.type},
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
