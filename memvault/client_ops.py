"""The REST clients' operations, each written once, without I/O: a generator that yields the
HTTP calls it needs (:class:`Call`) and receives each decoded answer, then returns the same
model the SDK returns. :class:`memvault.Client` runs them with a blocking ``httpx.Client``,
:class:`memvault.AsyncClient` awaits them with ``httpx.AsyncClient``; which operations they
offer is listed in :mod:`memvault.capabilities.registry` (``client=True``)."""

from __future__ import annotations

from collections.abc import Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from memvault.capabilities.forget import Correction, ForgetPlan
from memvault.errors import InvalidInputError
from memvault.ingest.pipeline import WriteResult
from memvault.kg.model import Episode, Fact
from memvault.kg.vocabulary import EntityTypeDef
from memvault.recall.results import Explanation, Hit, Recall

R = TypeVar("R")
Op = Generator["Call", Any, R]


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    json: Any = None
    params: Mapping[str, Any] | None = None


class Base:
    """What every operation reads of its client: the default namespace."""

    namespace: str | None

    def _ns(self, namespace: str | None) -> str:
        ns = namespace or self.namespace
        if not ns:
            raise InvalidInputError("is missing", field="namespace", hint="Client(namespace=...)")
        return ns

    def _path(self, namespace: str | None, tail: str) -> str:
        return f"/v1/ns/{self._ns(namespace)}{tail}"


def _ts(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _jsonable(item: Mapping[str, Any] | Any) -> dict[str, Any]:
    data = (
        item.model_dump(mode="json", exclude_none=True)
        if hasattr(item, "model_dump")
        else dict(item)
    )
    return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in data.items()}


def _pages(path: str, params: Mapping[str, Any], limit: int) -> Op[list[dict[str, Any]]]:
    out: list[dict[str, Any]] = []
    offset: int | None = 0
    while offset is not None and len(out) < limit:
        page = yield Call(
            "GET", path, params={**params, "limit": min(limit - len(out), 500), "offset": offset}
        )
        out += page["items"]
        offset = page["next_offset"]
    return out


# -- remember -------------------------------------------------------------------------------
def write_many(
    c: Base, /, items: Sequence[Mapping[str, Any]], *, namespace: str | None = None
) -> Op[WriteResult]:
    body = {"items": [_jsonable(i) for i in items]}
    data = yield Call("POST", c._path(namespace, "/episodes"), json=body)
    known = set(WriteResult.__dataclass_fields__)
    return WriteResult(**{k: v for k, v in data.items() if k in known})


def write(c: Base, /, content: str, *, namespace: str | None = None, **fields: Any) -> Op[Episode]:
    result = yield from write_many(c, [{"content": content, **fields}], namespace=namespace)
    return (yield from get_episode(c, result.episode_ids[0], namespace=namespace))


def add_facts(
    c: Base, /, items: Sequence[Mapping[str, Any]], *, namespace: str | None = None
) -> Op[list[Fact]]:
    body = {"items": [_jsonable(i) for i in items]}
    done = yield Call("POST", c._path(namespace, "/facts"), json=body)
    wanted = set(done["fact_ids"])
    found = yield from facts(c, namespace=namespace, include_history=True, limit=100_000)
    return [f for f in found if f.id in wanted]


def add_fact(
    c: Base,
    /,
    subject: str,
    predicate: str,
    object: str,
    *,
    namespace: str | None = None,
    **fields: Any,
) -> Op[Fact]:
    item = {"subject": subject, "predicate": predicate, "object": object, **fields}
    return (yield from add_facts(c, [item], namespace=namespace))[0]


# -- reading ----------------------------------------------------------------------------------
def recall(
    c: Base,
    /,
    query: str,
    *,
    namespace: str | None = None,
    k: int | None = None,
    as_of: datetime | None = None,
    persona: bool = False,
    session_id: str | None = None,
) -> Op[Recall]:
    body = {"query": query, "explain": True, "persona": persona, "as_of": _ts(as_of)}
    if k is not None:
        body["k"] = k
    if session_id is not None:
        body["session_id"] = session_id
    out = yield Call("POST", c._path(namespace, "/recall"), json=body)
    result = Recall(
        Hit(
            kind=h["kind"],
            id=h["id"],
            text=h["text"],
            score=h["score"],
            source_episode_ids=h["source_episode_ids"],
            tier=h.get("tier"),
            digest=h.get("digest"),
            explanation=Explanation.model_validate(h["explanation"]),
        )
        for h in out["hits"]
    )
    result.recall_id, result.hint = out.get("recall_id"), out.get("hint")
    result.prefetched = bool(out.get("prefetched"))
    result.vectors_pending = int(out.get("vectors_pending") or 0)
    return result


def verdict(
    c: Base,
    /,
    recall_id: str,
    verdict: str,
    *,
    hit_id: str | None = None,
    namespace: str | None = None,
) -> Op[dict[str, Any]]:
    body = {"recall_id": recall_id, "verdict": verdict, "hit_id": hit_id}
    return dict((yield Call("POST", c._path(namespace, "/verdicts"), json=body)))


def gaps(c: Base, /, *, namespace: str | None = None) -> Op[list[dict[str, Any]]]:
    return list((yield Call("GET", c._path(namespace, "/gaps"))))


def get_episode(c: Base, /, episode_id: str, *, namespace: str | None = None) -> Op[Episode]:
    data = yield Call("GET", c._path(namespace, f"/episodes/{episode_id}"))
    return Episode.model_validate(data)


def episodes(
    c: Base, /, *, namespace: str | None = None, session_id: str | None = None, limit: int = 100
) -> Op[list[Episode]]:
    rows = yield from _pages(c._path(namespace, "/episodes"), {"session_id": session_id}, limit)
    return [Episode.model_validate(r) for r in rows]


def facts(
    c: Base,
    /,
    *,
    namespace: str | None = None,
    subject: str | None = None,
    predicate: str | None = None,
    as_of: datetime | None = None,
    include_history: bool = False,
    limit: int = 1000,
) -> Op[list[Fact]]:
    params = {
        "subject": subject,
        "predicate": predicate,
        "as_of": _ts(as_of),
        "include_history": include_history or None,
    }
    rows = yield from _pages(c._path(namespace, "/facts"), params, limit)
    return [Fact.model_validate(r) for r in rows]


def stats(c: Base, /, *, namespace: str | None = None) -> Op[dict[str, Any]]:
    return dict((yield Call("GET", c._path(namespace, "/stats"))))


# -- feedback ---------------------------------------------------------------------------------
def judge(
    c: Base, /, ids: Iterable[str], signal: str, *, namespace: str | None = None
) -> Op[list[str]]:
    wanted = list(dict.fromkeys(ids))
    yield Call("POST", c._path(namespace, "/feedback"), json={"ids": wanted, "signal": signal})
    return wanted  # every id exists, or the server refused them all (404)


def record_access(c: Base, /, ids: Iterable[str], *, namespace: str | None = None) -> Op[int]:
    return len((yield from judge(c, ids, "access", namespace=namespace)))


def reinforce(c: Base, /, ids: Iterable[str], *, namespace: str | None = None) -> Op[int]:
    return len((yield from judge(c, ids, "reinforce", namespace=namespace)))


# -- forget -----------------------------------------------------------------------------------
def forget(
    c: Base, /, ids: str | Sequence[str], *, namespace: str | None = None, dry_run: bool = False
) -> Op[ForgetPlan]:
    """One request per id (``DELETE /episodes/{id}``); the plans are combined."""
    plans = []
    for i in [ids] if isinstance(ids, str) else list(ids):
        params = {"dry_run": "true"} if dry_run else None
        plans.append((yield Call("DELETE", c._path(namespace, f"/episodes/{i}"), params=params)))
    if not plans:
        raise InvalidInputError("names no memory", field="id", hint="give an episode id")
    first = ForgetPlan(**plans[0])
    for more in plans[1:]:
        for key in ("episode_ids", "fact_ids", "facts_kept", "entity_ids", "preview"):
            getattr(first, key).extend(more[key])
    return first


def forget_subject(
    c: Base, /, name: str, *, namespace: str | None = None, dry_run: bool = True
) -> Op[ForgetPlan]:
    body = {"subject": name, "dry_run": dry_run}
    return ForgetPlan(**(yield Call("POST", c._path(namespace, "/forget"), json=body)))


def correct(
    c: Base, /, episode_id: str, text: str, *, namespace: str | None = None
) -> Op[Correction]:
    path = c._path(namespace, f"/episodes/{episode_id}/correct")
    return Correction(**(yield Call("POST", path, json={"text": text})))


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
    return (yield from _pages(c._path(namespace, "/dream/runs"), {}, limit))


def undo_dream(
    c: Base, /, run_id: str, *, namespace: str | None = None, force: bool = False
) -> Op[int]:
    path = c._path(namespace, f"/dream/runs/{run_id}/undo")
    return int((yield Call("POST", path, json={"force": force}))["restored"])


def review_items(
    c: Base, /, *, namespace: str | None = None, status: str = "pending", limit: int = 100
) -> Op[list[dict[str, Any]]]:
    return (yield from _pages(c._path(namespace, "/review"), {"status": status}, limit))


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
    return (yield from _pages(c._path(namespace, "/inbox"), {"status": status}, limit))


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
    params = {"category": category, "as_of": _ts(as_of), "history": history or None}
    return list((yield Call("GET", c._path(namespace, "/persona/attitudes"), params=params)))


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
