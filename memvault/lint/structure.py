"""The structure level of the lint: orphan entities, facts pointing at missing entities,
self-loops, cycles of a predicate the ontology marks acyclic, validity intervals that end before
they start, objects that are sentences rather than values. Pure: the caller passes in a loaded
workspace."""

from __future__ import annotations

from collections import defaultdict

import igraph as ig

from memvault.changes.workspace import Workspace
from memvault.kg.model import Fact, normalize_name
from memvault.kg.ontology import Ontology
from memvault.lint.findings import Finding, change, retire

MAX_OBJECT_CHARS = 200


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
    fix retires the most recently learned fact of the loop. An object written as text (no
    entity id) that names an entity closes a loop too: "Kafka part_of the platform" and
    "Platform part_of kafka" loop whatever the extractor linked."""
    named: dict[str, str] = {}
    for e in sorted(ws.entities.values(), key=lambda e: e.id):
        for name in e.names():
            named.setdefault(normalize_name(name), e.id)
    by_predicate: dict[str, list[Fact]] = defaultdict(list)
    target: dict[str, str] = {}
    for f in live:
        if not onto.is_(f.predicate, "acyclic"):
            continue
        obj = f.object_id or named.get(normalize_name(f.object))
        if obj and obj != f.subject_id:
            target[f.id] = obj
            by_predicate[f.predicate].append(f)
    out: list[Finding] = []
    for predicate, facts in sorted(by_predicate.items()):
        nodes = sorted({f.subject_id for f in facts} | {target[f.id] for f in facts})
        index = {n: i for i, n in enumerate(nodes)}
        g = ig.Graph(
            n=len(nodes),
            edges=[(index[f.subject_id], index[target[f.id]]) for f in facts],
            directed=True,
        )
        for component in g.connected_components(mode="strong"):
            if len(component) < 2:
                continue
            members = {nodes[i] for i in component}
            loop = [f for f in facts if f.subject_id in members and target[f.id] in members]
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
