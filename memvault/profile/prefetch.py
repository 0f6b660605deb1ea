"""Prefetch, the "slow thinker" (docs/gaps.md#prefetch): while a session is active, predict
its next few questions and warm their results, so the recall that asks one is a lookup.

Predictions, in order, at most ``prefetch.max_queries`` per session:

1. **asked again**: this session's recent questions (agents re-ask between turns);
2. **templates**: the namespace's most frequent question shapes with one name in them
   ("where does {} live", from the recall log), filled with what the session just talked
   about (the entities of its latest writes), the knowledge graph's neighbours of those
   (the other side of their facts) and the profile's rising names.

Each prediction's hits are computed by the ordinary recall at the namespace's current
watermark and kept as a ``prefetch`` document (one per session and query signature, so
"Where does Maya live?" and "where is maya living" share one). A recall that names the
session looks there first and uses an entry only when nothing was written to the namespace
since (same watermark), it asks for no more than was warmed, not ``as_of``, and within
``prefetch.ttl_s`` of when it was warmed; every hit then says it came from the cache and why.
The work runs off the request path: the server queues it after a session's writes (the job
queue), the SDK exposes it as :meth:`memvault.MemVault.prefetch`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from memvault.config import PrefetchSettings
from memvault.kg.store import Batch, Doc, Store
from memvault.profile.recall_log import LOG, names, signature

PREFETCH, RISING = "prefetch", "profile_rising"
_SLOT = "\x00"  # where a name goes in a question shape (a query may hold any character)


@dataclass(frozen=True)
class Prediction:
    query: str
    why: str
    name: str | None = None  # the name a template was filled with (None: asked before)


def sane(prediction: Prediction, hits: list[dict[str, Any]]) -> bool:
    """Whether a predicted question is one worth warming: it finds something, and a filled
    template finds the name it was filled with (else nobody would ask it, or its answer
    would say nothing about what it names)."""
    if not hits:
        return False
    if prediction.name is None:
        return True
    name = prediction.name.casefold()
    return any(name in str(h.get("text", "")).casefold() for h in hits)


def entry_id(session_id: str, query: str) -> str:
    return f"{session_id}|{signature(query)}"


def _session_entities(store: Store, namespace: str, session_id: str, last: int) -> list[str]:
    """Names the session's latest writes mention, newest first."""
    found = store.get_sessions(namespace, [session_id])
    if not found:
        return []
    count = found[0].episode_count
    episodes = store.list_episodes(
        namespace, session_id=session_id, offset=max(0, count - last), limit=last
    )
    by_episode: dict[str, list[str]] = {}
    for m in store.mentions_of(namespace, [e.id for e in episodes]):
        by_episode.setdefault(m.episode_id, []).append(m.entity_id)
    ids = [i for e in reversed(episodes) for i in by_episode.get(e.id, [])]
    entities = {e.id: e.name for e in store.get_entities(namespace, ids)}
    return list(dict.fromkeys(entities[i] for i in ids if i in entities))


def _kinds(store: Store, namespace: str, names_: list[str]) -> dict[str, str]:
    """name → its entity's type, for the names the namespace knows."""
    out: dict[str, str] = {}
    for e in store.find_entities(namespace, list(dict.fromkeys(names_))):
        for n in e.names():
            out.setdefault(n, e.type)
    return out


def _neighbours(store: Store, namespace: str, names_: list[str], top: int) -> list[str]:
    """The other side of the facts about these names."""
    entities = store.find_entities(namespace, names_)
    out: list[str] = []
    for f in store.facts_about(namespace, [e.id for e in entities]):
        for other in (f.subject, f.object):
            if other and other not in names_ and other not in out:
                out.append(other)
    return out[:top]


def predict(
    store: Store,
    namespace: str,
    session_id: str,
    s: PrefetchSettings,
    rising: list[str],
) -> list[Prediction]:
    logs = store.list_docs(namespace, LOG, limit=s.log_window)  # newest first
    out: dict[str, Prediction] = {}

    def add(query: str, why: str) -> None:
        sig = signature(query)
        if sig and sig not in out and len(out) < s.max_queries:
            out[sig] = Prediction(query, why)

    def add_filled(query: str, why: str, name: str) -> None:
        sig = signature(query)
        if sig and sig not in out and len(out) < s.max_queries:
            out[sig] = Prediction(query, why, name)

    for d in logs:
        if d.body.get("session_id") == session_id:
            add(str(d.body.get("query", "")), "asked earlier in this session")
    # who speaks is not what they ask about ("what do I know about user?")
    speakers = {x.casefold() for x in store.speakers_since(namespace, 0)[1]}
    talked = [
        n
        for n in _session_entities(store, namespace, session_id, s.recent_writes)
        if n.casefold() not in speakers
    ]
    pool = [(n, "just talked about") for n in talked]
    pool += [(n, f"next to {talked[0]} in the graph") for n in _neighbours(store, namespace,
             talked[:3], s.max_queries)] if talked else []  # fmt: skip
    pool += [(n, "rising in the profile") for n in rising if n.casefold() not in speakers]
    shapes: Counter[str] = Counter()
    slot_names: dict[str, set[str]] = {}
    for d in logs:
        query = str(d.body.get("query", ""))
        named = [n for n in names(query) if n in query]
        if len(named) == 1:
            shape = query.replace(named[0], _SLOT)
            shapes[shape] += 1
            slot_names.setdefault(shape, set()).add(named[0])
    kinds = _kinds(
        store, namespace, [n for n, _ in pool] + [x for v in slot_names.values() for x in v]
    )
    for shape, _ in shapes.most_common(s.templates):
        shown = shape.replace(_SLOT, "…")
        # a slot asked with people is filled with people, not places (types when known)
        wanted = {kinds.get(n, "unknown") for n in slot_names[shape]} - {"unknown"}
        for name, source in pool:
            # (a name no entity holds, such as a fact's literal object, has no type to match)
            if wanted and kinds.get(name) not in wanted | {"unknown"}:
                continue
            add_filled(
                shape.replace(_SLOT, name), f"'{shown}' is asked often; {name}: {source}", name
            )
    return list(out.values())


def rising_today(
    store: Store, namespace: str, now: datetime, compute: Callable[[], dict[str, Any]]
) -> list[str]:
    """The profile's rising names, computed once a day per namespace (the profile reads the
    whole namespace; a session's prefetch must not) and kept as a document."""
    day = now.astimezone(UTC).date().isoformat()
    found = store.get_docs(namespace, RISING, [day])
    if found:
        return list(found[0].body.get("rising", []))
    rising = list(compute()["rising"])
    stale = [(RISING, d.id) for d in store.list_docs(namespace, RISING, limit=100) if d.id != day]
    doc = Doc(RISING, day, {"rising": rising}, created_at=now)
    store.apply(Batch(namespace=namespace, docs=[doc], drop_docs=stale, quiet=True, durable=False))
    return rising


def warm_docs(
    session_id: str,
    predictions: list[tuple[Prediction, list[dict[str, Any]]]],
    watermark: int,
    k: int,
    now: datetime,
) -> list[Doc]:
    return [
        Doc(
            PREFETCH,
            entry_id(session_id, p.query),
            {
                "session_id": session_id,
                "query": p.query,
                "why": p.why,
                "watermark": watermark,
                "k": k,
                "computed_at": now.isoformat(),
                "hits": hits,
            },
            status="warm",
            created_at=now,
        )
        for p, hits in predictions
    ]


def stale(store: Store, namespace: str, session_id: str, keep: set[str], now: datetime,
          s: PrefetchSettings) -> list[tuple[str, str]]:  # fmt: skip
    """This session's entries not predicted again, and anyone's past the ttl."""
    cutoff = now - timedelta(seconds=s.ttl_s)
    return [
        (PREFETCH, d.id)
        for d in store.list_docs(namespace, PREFETCH, limit=100_000)
        if d.id not in keep
        and (
            d.body.get("session_id") == session_id
            or (d.created_at is not None and d.created_at < cutoff)
        )
    ]


def lookup(
    store: Store, namespace: str, session_id: str, query: str, k: int, now: datetime,
    s: PrefetchSettings,
) -> dict[str, Any] | None:  # fmt: skip
    """The warm entry for this question, if it is still exactly what recall would say."""
    found = store.get_docs(namespace, PREFETCH, [entry_id(session_id, query)])
    if not found:
        return None
    body = found[0].body
    at = datetime.fromisoformat(body["computed_at"])
    fresh = abs((now - at).total_seconds()) <= s.ttl_s
    if body["watermark"] != store.watermark(namespace) or k > body["k"] or not fresh:
        return None
    return body
