"""The recall log, recall verdicts and recall-failure knowledge gaps (docs/gaps.md).

- **Log.** Every recall through the SDK (so the CLI, REST and MCP too) is kept as a
  ``recall_log`` document: time, query, its normalised *signature* (content words, lowercased,
  crudely stemmed, sorted: "Where does Maya live?" and "where is maya living" share one), an
  intent from a small rule (where, when, who, what, how, why, lookup), the capitalised names it
  mentions and the ids it returned. Recall's ranking never reads it.
- **Verdicts.** ``correct``, ``incorrect`` or ``ambiguous`` on a logged recall, for the whole
  answer or one hit: a correct hit is reinforced, an incorrect one loses importance (0.1,
  within 0..1), as feedback ``reinforce`` / ``down``.
- **Gaps.** A signature with two ``incorrect`` verdicts becomes an open ``knowledge_gap``
  (signature, fail count, last failure, example queries); the next recall with that signature
  carries a hint ("this has failed before: consider adding the answer") and the vault never
  invents an answer to fill it. A later ``correct`` verdict on the signature closes it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memvault.errors import InvalidInputError, NotFoundError
from memvault.kg.store import Batch, Doc, Store
from memvault.language.stem import stem

LOG, GAP = "recall_log", "knowledge_gap"
VERDICTS = ("correct", "incorrect", "ambiguous")
FAILS_TO_OPEN = 2
_STOP = set(
    "a an the is are was were be been do does did of in on at to for with about from by and or "
    "what where when who whom which how why whose i me my you your we our it its this that "
    "these those there here can could would should will shall may might must has have had "
    "please tell any some now currently still again today".split()
)
LABELS = ("where", "when", "who", "what", "how", "why", "lookup")
_INTENTS = [
    ("where", "where"),
    ("when", "when"),
    ("who", "who"),
    ("whom", "who"),
    ("why", "why"),
    ("how", "how"),
    ("what", "what"),
    ("which", "what"),
]


def signature(query: str) -> str:
    plain = re.sub(r"['’]s\b", "", query.lower())  # Maya's dentist → maya dentist
    words = re.findall(r"[a-z0-9][a-z0-9-]*", plain)
    return " ".join(sorted({stem(w) for w in words if w not in _STOP}))


def intent(query: str) -> str:
    first = re.findall(r"[a-z]+", query.lower())[:3]
    return next((label for word, label in _INTENTS if word in first), "lookup")


def names(query: str) -> list[str]:
    """The names a question mentions, read as the offline rules read names in what is
    written: a word capitalised only because it opens a sentence is none ("Can you suggest
    …", "My knees hurt …" named "Can" and "My" in the profile)."""
    from memvault.ingest.rules import extract

    return sorted({e.name for e in extract(query, speaker=None).entities if not e.tentative})


def gap_id(sig: str) -> str:
    return hashlib.blake2b(sig.encode(), digest_size=10).hexdigest()


def log_doc(
    recall_id: str,
    query: str,
    ids: Sequence[str],
    at: datetime,
    session_id: str | None = None,
    prefetched: bool = False,
) -> Doc:
    body = {
        "session_id": session_id,
        "prefetched": prefetched,
        "query": query,
        "signature": signature(query),
        "intent": intent(query),
        "names": names(query),
        "ids": list(ids),
        "verdicts": [],
    }
    return Doc(LOG, recall_id, body, status="logged", created_at=at)


def hint_key(query: str) -> tuple[str, str]:
    """The (kind, id) of the document that holds this query's gap, if it has one."""
    return GAP, gap_id(signature(query))


def hint(store: Store, namespace: str, query: str) -> str | None:
    """The hint of an open gap on this query's signature, or None."""
    kind, gid = hint_key(query)
    return hint_from(store.get_docs(namespace, kind, [gid]))


def hint_from(found: Sequence[Doc]) -> str | None:
    """The hint of the open gap among ``found`` (what :func:`hint_key` named), or None."""
    found = [d for d in found if d.kind == GAP]
    if not found or found[0].status != "open":
        return None
    g = found[0].body
    return (
        f"this has failed before ({g['fail_count']}× marked incorrect, last "
        f"{str(g['last_fail_at'])[:10]}): consider adding the answer"
    )


def relabel(
    store: Store, namespace: str, llm: Any, since: datetime, batch: int = 50
) -> dict[str, int]:
    """The configured model's intent for the questions logged since ``since`` that only the
    rule labelled (at recall time, the rule: no model call on the request path). Offline,
    nothing to do: the rule already spoke. A label outside :data:`LABELS` keeps the rule's."""
    from memvault.llm.offline import OfflineProvider
    from memvault.llm.prompts import intents_v1

    if isinstance(llm, OfflineProvider):
        return {"relabelled": 0, "model_calls": 0}
    todo = [
        d
        for d in store.list_docs(namespace, LOG, limit=1_000_000)
        if d.created_at is not None and d.created_at >= since and d.body.get("intent_by") != "model"
    ]
    changed, calls = 0, 0
    for start in range(0, len(todo), batch):
        chunk = todo[start : start + batch]
        asked = [
            {"id": f"q{n}", "query": str(d.body.get("query", ""))} for n, d in enumerate(chunk)
        ]
        answer = llm.complete(intents_v1(asked, LABELS), call_site="profile.intents")
        calls += 1
        said = {a.id: a.intent.strip().lower() for a in answer.labels}
        docs = []
        for n, d in enumerate(chunk):
            label = said.get(f"q{n}")
            if label in LABELS:
                body = {**d.body, "intent": label, "intent_by": "model"}
                docs.append(Doc(LOG, d.id, body, status=d.status, created_at=d.created_at))
                changed += int(label != d.body.get("intent"))
        store.apply(Batch(namespace=namespace, docs=docs, quiet=True, durable=False))
    return {"relabelled": changed, "model_calls": calls}


def returned(store: Store, namespace: str, recall_id: str) -> list[str]:
    """The ids a logged recall returned."""
    found = store.get_docs(namespace, LOG, [recall_id])
    return list(found[0].body.get("ids", [])) if found else []


def verdict(
    store: Store,
    namespace: str,
    recall_id: str,
    value: str,
    at: datetime,
    hit_id: str | None = None,
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Record a verdict; (the gap's state, the feedback signals to apply: (id, signal))."""
    if value not in VERDICTS:
        raise InvalidInputError(
            f"unknown verdict {value!r}", field="verdict", hint="correct, incorrect or ambiguous"
        )
    found = store.get_docs(namespace, LOG, [recall_id])
    if not found:
        raise NotFoundError("recall", recall_id, namespace)
    log = found[0]
    if hit_id is not None and hit_id not in log.body["ids"]:
        raise InvalidInputError(
            f"{hit_id!r} was not returned by recall {recall_id}", field="hit_id"
        )
    sig = log.body["signature"]
    body = {
        **log.body,
        "verdicts": [
            *log.body["verdicts"],
            {"verdict": value, "hit_id": hit_id, "at": at.isoformat()},
        ],
    }
    docs = [Doc(LOG, log.id, body, status=log.status, created_at=log.created_at)]
    gid = gap_id(sig)
    existing = store.get_docs(namespace, GAP, [gid])
    gap = existing[0] if existing else None
    signals: list[tuple[str, str]] = []
    if hit_id is not None and value != "ambiguous":
        signals.append((hit_id, "reinforce" if value == "correct" else "down"))
    state: dict[str, Any] = {"signature": sig, "status": gap.status if gap else None}
    if value == "incorrect":
        g = dict(gap.body) if gap else {"signature": sig, "fail_count": 0, "examples": []}
        g["fail_count"] = int(g["fail_count"]) + 1
        g["last_fail_at"] = at.isoformat()
        g["examples"] = list(dict.fromkeys([*g["examples"], log.body["query"]]))[-5:]
        status = "open" if g["fail_count"] >= FAILS_TO_OPEN else "watching"
        docs.append(Doc(GAP, gid, g, status=status, created_at=gap.created_at if gap else at))
        state = {"signature": sig, "status": status, "fail_count": g["fail_count"]}
    elif value == "correct" and gap is not None and gap.status in ("open", "watching"):
        g = {**gap.body, "closed_at": at.isoformat(), "fail_count": 0}
        docs.append(Doc(GAP, gid, g, status="closed", created_at=gap.created_at))
        state = {"signature": sig, "status": "closed"}
    store.apply(Batch(namespace=namespace, docs=docs))
    return state, signals


def gaps(store: Store, namespace: str, inbox: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Recall-failure gaps (open) and structural gaps (the discovery inbox's), each with its
    kind."""
    out: list[dict[str, Any]] = [
        {"kind": "recall_failure", "id": d.id, **d.body}
        for d in store.list_docs(namespace, GAP, status="open", limit=10_000)
    ]
    out += [{**d, "kind": "structural"} for d in inbox if d.get("kind") == "knowledge_gap"]
    return out
