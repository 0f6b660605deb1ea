"""Reading the changes layer's documents: dream (and lint) runs, the review queue, and the
discovery inbox, as plain dicts the SDK, the CLI and the API return."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memvault.changes.docs import DISCOVERY, REVIEW, RUN
from memvault.errors import InvalidInputError, NotFoundError
from memvault.kg.store import Batch, Doc, Store

INBOX_STATES = ("seen", "dismissed")


def runs(store: Store, namespace: str, limit: int = 20) -> list[dict[str, Any]]:
    return [
        {
            "run_id": d.id,
            "status": d.status,
            "at": d.body.get("now"),
            "changes": d.body.get("changes"),
            "applied": d.body.get("applied"),
            "to_review": d.body.get("to_review"),
        }
        for d in store.list_docs(namespace, RUN, limit=limit)
    ]


def report(run: Doc) -> dict[str, Any]:
    """A run's report without its journal (ids of inverse entries, not for readers)."""
    return {**{k: v for k, v in run.body.items() if k != "journal"}, "status": run.status}


def review_items(
    store: Store,
    namespace: str,
    status: str | None = "pending",
    limit: int = 100,
    *,
    reason: str | None = None,
    oldest_first: bool = False,
) -> list[dict[str, Any]]:
    wanted = 100_000 if reason or oldest_first else limit
    docs = store.list_docs(namespace, REVIEW, status=status, limit=wanted)
    if reason:
        docs = [d for d in docs if reason in {r["code"] for r in d.body.get("reasons", [])}]
    if oldest_first:
        docs = docs[::-1]
    return [{"id": d.id, "status": d.status, **d.body} for d in docs[:limit]]


def inbox(
    store: Store, namespace: str, status: str | None = "unseen", limit: int = 100
) -> list[dict[str, Any]]:
    docs = store.list_docs(namespace, DISCOVERY, status=status, limit=limit)
    return [{"id": d.id, "status": d.status, **d.body} for d in docs]


def mark_inbox(store: Store, namespace: str, ids: Iterable[str], status: str) -> int:
    """Mark inbox items seen or dismissed; every id must exist, or nothing changes."""
    if status not in INBOX_STATES:
        raise InvalidInputError(
            f"unknown status {status!r}", field="status", hint="seen or dismissed"
        )
    wanted = list(dict.fromkeys(ids))
    found = store.get_docs(namespace, DISCOVERY, wanted)
    missing = set(wanted) - {d.id for d in found}
    if missing:
        raise NotFoundError("inbox item", sorted(missing)[0], namespace)
    store.apply(
        Batch(
            namespace=namespace,
            docs=[
                Doc(DISCOVERY, d.id, d.body, status=status, created_at=d.created_at) for d in found
            ],
        )
    )
    return len(found)
