"""The REST clients' operations on memories: remember, recall, read, feedback, forget."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from memvault.capabilities.forget import Correction, ForgetPlan
from memvault.client_ops.base import Base, Call, Op, jsonable, pages, ts
from memvault.errors import InvalidInputError
from memvault.ingest.pipeline import WriteResult
from memvault.kg.model import Episode, Fact
from memvault.recall.results import Explanation, Hit, Recall


# -- remember -------------------------------------------------------------------------------
def write_many(
    c: Base, /, items: Sequence[Mapping[str, Any]], *, namespace: str | None = None
) -> Op[WriteResult]:
    body = {"items": [jsonable(i) for i in items]}
    data = yield Call("POST", c._path(namespace, "/episodes"), json=body)
    known = set(WriteResult.__dataclass_fields__)
    return WriteResult(**{k: v for k, v in data.items() if k in known})


def import_chat_export(
    c: Base,
    /,
    raw: bytes,
    *,
    namespace: str | None = None,
    fmt: str | None = None,
    user: str | None = None,
    dry_run: bool = False,
    skip_invalid: bool = False,
) -> Op[dict[str, Any]]:
    """A ChatGPT or Claude export (its conversations.json or .zip) as the body; the report
    the server makes (docs/interop.md). Larger than the server's body limit: send slices of
    its list of conversations."""
    params = {"format": fmt, "speaker": user, "dry_run": dry_run, "skip_invalid": skip_invalid}
    data: dict[str, Any] = yield Call(
        "POST", c._path(namespace, "/imports/chat-export"), params=params, content=raw
    )
    return data


def write_session(
    c: Base,
    /,
    session_id: str,
    items: Sequence[Mapping[str, Any]],
    *,
    namespace: str | None = None,
) -> Op[WriteResult]:
    """The turns of one session, in order (the server prefetches its next questions)."""
    body = {"items": [jsonable(i) for i in items]}
    data = yield Call("POST", c._path(namespace, f"/sessions/{session_id}/episodes"), json=body)
    known = set(WriteResult.__dataclass_fields__)
    return WriteResult(**{k: v for k, v in data.items() if k in known})


def write(c: Base, /, content: str, *, namespace: str | None = None, **fields: Any) -> Op[Episode]:
    result = yield from write_many(c, [{"content": content, **fields}], namespace=namespace)
    return (yield from get_episode(c, result.episode_ids[0], namespace=namespace))


def add_facts(
    c: Base, /, items: Sequence[Mapping[str, Any]], *, namespace: str | None = None
) -> Op[list[Fact]]:
    body = {"items": [jsonable(i) for i in items]}
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
    body = {"query": query, "explain": True, "persona": persona, "as_of": ts(as_of)}
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
    rows = yield from pages(c._path(namespace, "/episodes"), {"session_id": session_id}, limit)
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
        "as_of": ts(as_of),
        "include_history": include_history or None,
    }
    rows = yield from pages(c._path(namespace, "/facts"), params, limit)
    return [Fact.model_validate(r) for r in rows]


def stats(c: Base, /, *, namespace: str | None = None) -> Op[dict[str, Any]]:
    return dict((yield Call("GET", c._path(namespace, "/stats"))))


def profile(c: Base, /, *, namespace: str | None = None) -> Op[dict[str, Any]]:
    return dict((yield Call("GET", c._path(namespace, "/profile"))))


def diary(
    c: Base, /, *, date: str | None = None, namespace: str | None = None
) -> Op[dict[str, Any]]:
    return dict((yield Call("GET", c._path(namespace, "/diary"), params={"date": date})))


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
