"""Retention of text that one-way compression dropped (:mod:`memvault.lifecycle.tiers`).

A run that replaced episodes' text with digests keeps the text it dropped in its journal, so
the run can be undone, but only for ``dream.tiers.journal_retention_days``. After that,
:func:`forget_dropped_text` rewrites every copy the run's documents hold (the journal
entries, the changes it recorded for applying, its review items) to the digest: undo then
restores the tier and nothing more, and no API can return the original any more. Each run is
forgotten once (``text_forgotten_at`` on its run document).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from memvault.changes.apply import JOURNAL, PENDING, REVIEW, RUN
from memvault.kg.store import Batch, Doc, Store


def _compressed(before: Any, after: Any) -> bool:
    return (
        isinstance(before, dict)
        and isinstance(after, dict)
        and bool((after.get("metadata") or {}).get("digest"))
        and before.get("content") != after.get("content")
    )


def _forget(item: dict[str, Any]) -> bool:
    """Rewrite one journal entry or recorded change in place; whether it held dropped text."""
    before, after = item.get("before"), item.get("after")
    if item.get("kind") != "episode" or not _compressed(before, after):
        return False
    assert isinstance(before, dict) and isinstance(after, dict)
    item["before"] = {**before, "content": after["content"], "metadata": after["metadata"]}
    item.pop("vector", None)  # the old text's embedding goes with it
    return True


def forget_dropped_text(
    store: Store, namespace: str, now: datetime, retention_days: float
) -> dict[str, int]:
    """Forget the dropped text of every run older than the retention; what was forgotten."""
    cutoff = now - timedelta(days=retention_days)
    runs = [
        d
        for d in store.list_docs(namespace, RUN, limit=1_000_000)
        if d.created_at is not None
        and d.created_at <= cutoff
        and "text_forgotten_at" not in d.body
        and d.status != "applying"  # a run still being applied is finished first
    ]
    forgotten = 0
    for run in runs:
        docs = [
            *store.get_docs(namespace, JOURNAL, list(run.body.get("journal", []))),
            *store.get_docs(namespace, PENDING, [run.id]),
            *store.get_docs(namespace, REVIEW, list(run.body.get("review_ids", []))),
        ]
        changed: list[Doc] = []
        for doc in docs:
            items = doc.body.get("entries") or doc.body.get("changes") or []
            hits = sum(_forget(item) for item in items)
            if hits:
                forgotten += hits if doc.kind == JOURNAL else 0
                changed.append(doc)
        body = {**run.body, "text_forgotten_at": now.isoformat()}
        changed.append(Doc(RUN, run.id, body, status=run.status, created_at=run.created_at))
        store.apply(Batch(namespace=namespace, docs=changed))
    return {"runs": len(runs), "texts": forgotten}
