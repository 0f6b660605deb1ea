"""The REST clients' operations on the background (dream, review, inbox, folds, tiers,
the janitor, the lint, vectors), the person (persona, profile, diary) and the namespace's own
entity types."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from memvault.client_ops.base import Base, Call, Op, pages, ts
from memvault.kg.vocabulary import EntityTypeDef


# -- the background ---------------------------------------------------------------------------
def dream(
    c: Base, /, *, namespace: str | None = None, apply: bool = False, force: bool = False
) -> Op[dict[str, Any]]:
    """A dry run's plan at once; ``apply`` queues a job (poll ``dream_job``)."""
    body = {"apply": apply, "force": force}
    return dict((yield Call("POST", c._path(namespace, "/dream"), json=body)))


def dream_job(c: Base, /, job_id: str, *, namespace: str | None = None) -> Op[dict[str, Any]]:
    return dict((yield Call("GET", c._path(namespace, f"/dream/jobs/{job_id}"))))


def dream_runs(
    c: Base, /, *, namespace: str | None = None, limit: int = 20
) -> Op[list[dict[str, Any]]]:
    return (yield from pages(c._path(namespace, "/dream/runs"), {}, limit))


def dream_report(c: Base, /, run_id: str, *, namespace: str | None = None) -> Op[dict[str, Any]]:
    return dict((yield Call("GET", c._path(namespace, f"/dream/runs/{run_id}"))))


def undo_dream(
    c: Base, /, run_id: str, *, namespace: str | None = None, force: bool = False
) -> Op[int]:
    path = c._path(namespace, f"/dream/runs/{run_id}/undo")
    return int((yield Call("POST", path, json={"force": force}))["restored"])


def review_items(
    c: Base, /, *, namespace: str | None = None, status: str = "pending", limit: int = 100
) -> Op[list[dict[str, Any]]]:
    return (yield from pages(c._path(namespace, "/review"), {"status": status}, limit))


def approve(c: Base, /, review_id: str, *, namespace: str | None = None) -> Op[int]:
    out = yield Call("POST", c._path(namespace, f"/review/{review_id}/approve"))
    return int(out.get("applied", 0))


def reject(c: Base, /, review_id: str, *, namespace: str | None = None, note: str = "") -> Op[None]:
    yield Call("POST", c._path(namespace, f"/review/{review_id}/reject"), json={"note": note})


def decide_reviews(
    c: Base, /, decision: str, *, namespace: str | None = None, **filters: Any
) -> Op[dict[str, Any]]:
    """Approve or reject in bulk (``reason``, ``op``, ``run_id``, ``every``, ``dry_run``,
    ``note``); a dry run unless ``dry_run=False``."""
    body = {"decision": decision, **filters}
    return (yield Call("POST", c._path(namespace, "/review/decide"), json=body))


def inbox(
    c: Base, /, *, namespace: str | None = None, status: str = "unseen", limit: int = 100
) -> Op[list[dict[str, Any]]]:
    return (yield from pages(c._path(namespace, "/inbox"), {"status": status}, limit))


def mark_seen(c: Base, /, ids: Iterable[str], *, namespace: str | None = None) -> Op[int]:
    out = yield Call("POST", c._path(namespace, "/inbox/seen"), json={"ids": list(ids)})
    return int(out["marked"])


def mark_dismissed(c: Base, /, ids: Iterable[str], *, namespace: str | None = None) -> Op[int]:
    out = yield Call("POST", c._path(namespace, "/inbox/dismiss"), json={"ids": list(ids)})
    return int(out["marked"])


def fold(
    c: Base,
    /,
    *,
    namespace: str | None = None,
    apply: bool = False,
    rebuild: bool = False,
    undo: bool = False,
) -> Op[dict[str, Any]]:
    """Each type's digest folded (a dry run unless ``apply``); ``undo``: back to before each
    type's last fold (a preview unless ``apply``)."""
    body = {"apply": apply, "rebuild": rebuild, "undo": undo}
    return dict((yield Call("POST", c._path(namespace, "/fold"), json=body)))


def tiers(c: Base, /, *, namespace: str | None = None, apply: bool = False) -> Op[dict[str, Any]]:
    return dict((yield Call("POST", c._path(namespace, "/tiers"), json={"apply": apply})))


def janitor(c: Base, /, *, namespace: str | None = None, apply: bool = False) -> Op[dict[str, Any]]:
    return dict((yield Call("POST", c._path(namespace, "/janitor"), json={"apply": apply})))


def lint(
    c: Base,
    /,
    *,
    namespace: str | None = None,
    levels: Sequence[str] | None = None,
    propose: bool = False,
    limit: int = 100,
) -> Op[dict[str, Any]]:
    body: dict[str, Any] = {"propose": propose, "limit": limit}
    if levels is not None:
        body["levels"] = list(levels)
    return dict((yield Call("POST", c._path(namespace, "/lint"), json=body)))


def catch_up(c: Base, /, *, namespace: str | None = None) -> Op[dict[str, Any]]:
    """Queue the vectors deferred writes owe (poll ``dream_job`` with its ``job_id``)."""
    return dict((yield Call("POST", c._path(namespace, "/catch-up"))))


def primer(
    c: Base,
    /,
    *,
    namespace: str | None = None,
    budget_tokens: int | None = None,
    project: str | None = None,
) -> Op[dict[str, Any]]:
    path = c._path(namespace, "/primer")
    return dict((yield Call("GET", path, params={"budget": budget_tokens, "project": project})))


def attitudes(
    c: Base,
    /,
    *,
    namespace: str | None = None,
    category: str | None = None,
    as_of: datetime | None = None,
    history: bool = False,
) -> Op[list[dict[str, Any]]]:
    params = {"category": category, "as_of": ts(as_of), "history": history or None}
    return list((yield Call("GET", c._path(namespace, "/persona/attitudes"), params=params)))


def upsert_attitude(
    c: Base, /, category: str, statement: str, *, namespace: str | None = None, **fields: Any
) -> Op[dict[str, Any]]:
    """Optional ``topic``, ``context``, ``polarity``, ``confidence``, ``evidence``: a
    restatement corroborates, a change starts a new version (the old one is kept)."""
    body = {"category": category, "statement": statement, **fields}
    return dict((yield Call("POST", c._path(namespace, "/persona/attitudes"), json=body)))


def record_skill_use(
    c: Base,
    /,
    skill: str,
    *,
    kind: str = "do",
    evidence: str | None = None,
    namespace: str | None = None,
) -> Op[dict[str, Any]]:
    """One use of a skill (read < do < teach / build), with the episode it shows in."""
    body = {"skill": skill, "kind": kind, "evidence": evidence}
    return dict((yield Call("POST", c._path(namespace, "/persona/skills/uses"), json=body)))


def skills(c: Base, /, *, namespace: str | None = None) -> Op[list[dict[str, Any]]]:
    return list((yield Call("GET", c._path(namespace, "/persona/skills"))))


def entity_types(c: Base, /, *, namespace: str | None = None) -> Op[list[EntityTypeDef]]:
    found = yield Call("GET", c._path(namespace, "/entity-types"))
    return [EntityTypeDef.model_validate(t) for t in found]


def define_entity_type(
    c: Base,
    /,
    name: str,
    description: str,
    *,
    cues: Sequence[str] = (),
    namespace: str | None = None,
) -> Op[EntityTypeDef]:
    body = {"description": description, "cues": list(cues)}
    found = yield Call("PUT", c._path(namespace, f"/entity-types/{name}"), json=body)
    return EntityTypeDef.model_validate(found)


def remove_entity_type(c: Base, /, name: str, *, namespace: str | None = None) -> Op[EntityTypeDef]:
    found = yield Call("DELETE", c._path(namespace, f"/entity-types/{name}"))
    return EntityTypeDef.model_validate(found)
