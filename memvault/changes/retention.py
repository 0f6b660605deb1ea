"""Retention of the journal: what the tiers' moves keep (:mod:`memvault.lifecycle.tiers`), and
every run's journal after ``dream.undo_days`` (:func:`release_journals`).

A run that moved episodes down the tiers, and replaced their text with digests, journals each
record before and after, so the run can be undone, but only for
``dream.tiers.journal_retention_days``. After that, :func:`forget_dropped_text` takes the
tiers' entries out of the run's journal and rewrites any copy of the dropped text its review
items hold to the digest: undo then leaves those memories as they are (the rest of the run
still undoes), no API can return the original text, and the journal stops costing the store
what the digests saved. Each run is visited once (``text_forgotten_at`` on its run document).
Journals written before entries carried their op keep their entries, with the text rewritten.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from memvault.changes.docs import JOURNAL, REVIEW, RUN, after_of
from memvault.kg.store import Batch, Doc, Store

TIER_OPS = "tiers."


def _compressed(before: Any, after: Any) -> bool:
    return (
        isinstance(before, dict)
        and isinstance(after, dict)
        and bool((after.get("metadata") or {}).get("digest"))
        and before.get("content") != after.get("content")
    )


def _rewrite(item: dict[str, Any]) -> bool:
    """Rewrite one entry or recorded change in place to hold the digest, not the text."""
    before, after = item.get("before"), after_of(item)
    if item.get("kind") != "episode" or not _compressed(before, after):
        return False
    assert isinstance(before, dict) and isinstance(after, dict)
    item["before"] = {**before, "content": after["content"], "metadata": after["metadata"]}
    item.pop("vector", None)  # the old text's embedding goes with it
    return True


def _forget_journal(doc: Doc) -> int:
    entries = doc.body.get("entries", [])
    kept = [e for e in entries if not str(e.get("op", "")).startswith(TIER_OPS)]
    rewritten = sum(_rewrite(e) for e in kept)
    doc.body["entries"] = kept
    return len(entries) - len(kept) + rewritten


def _runs_older_than(store: Store, namespace: str, cutoff: datetime, done: str) -> list[Doc]:
    """Runs made before ``cutoff`` that this step has not visited (``done`` not in their
    body); a run still being applied is finished first."""
    return [
        d
        for d in store.list_docs(namespace, RUN, limit=1_000_000)
        if d.created_at is not None
        and d.created_at <= cutoff
        and done not in d.body
        and d.status != "applying"
    ]


def forget_dropped_text(
    store: Store, namespace: str, now: datetime, retention_days: float
) -> dict[str, int]:
    """Forget the tiers' journal entries of every run older than the retention."""
    runs = _runs_older_than(
        store, namespace, now - timedelta(days=retention_days), "text_forgotten_at"
    )
    forgotten = 0
    for run in runs:
        changed: list[Doc] = []
        for doc in store.get_docs(namespace, JOURNAL, list(run.body.get("journal", []))):
            n = _forget_journal(doc)
            if n:
                forgotten += n
                changed.append(doc)
        for doc in store.get_docs(namespace, REVIEW, list(run.body.get("review_ids", []))):
            if sum(_rewrite(c) for c in doc.body.get("changes", [])):
                changed.append(doc)
        body = {**run.body, "text_forgotten_at": now.isoformat()}
        changed.append(Doc(RUN, run.id, body, status=run.status, created_at=run.created_at))
        store.apply(Batch(namespace=namespace, docs=changed))
    return {"runs": len(runs), "entries": forgotten}


def release_journals(
    store: Store, namespace: str, now: datetime, undo_days: float | None
) -> dict[str, int]:
    """Drop the journal of every run whose last change is older than ``undo_days``: the
    records as they were before the run (a deleted memory's text among them) leave the
    store, and the run can no longer be undone (its document says since when:
    ``journal_released_at``). A run still being applied, or with review items still pending
    (an approval is journaled with its run, and must stay undoable), keeps its journal; an
    approval restarts the clock. Review items themselves are not touched: the pending ones
    are the queue, the decided ones its history."""
    if undo_days is None:
        return {"runs": 0, "journals": 0}
    cutoff = now - timedelta(days=undo_days)
    runs = _runs_older_than(store, namespace, cutoff, "journal_released_at")
    released, kept = 0, 0
    for run in runs:
        ids = list(run.body.get("journal", []))
        journals = store.get_docs(namespace, JOURNAL, ids)
        pending = [
            d
            for d in store.get_docs(namespace, REVIEW, list(run.body.get("review_ids", [])))
            if d.status == "pending"
        ]
        if pending or any(j.created_at is not None and j.created_at > cutoff for j in journals):
            kept += 1
            continue
        body = {**run.body, "journal": [], "journal_released_at": now.isoformat()}
        store.apply(
            Batch(
                namespace=namespace,
                docs=[Doc(RUN, run.id, body, status=run.status, created_at=run.created_at)],
                drop_docs=[(JOURNAL, i) for i in ids],
            )
        )
        released += len(ids)
    return {"runs": len(runs) - kept, "journals": released}
