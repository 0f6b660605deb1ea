"""The documents the change layer keeps beside the records (dream runs, their journals and
progress, review items, communities, the discovery inbox) and what is read back from them:
the last op that touched a record, the changes a human rejected, a review item's stable id
and body. Written by :mod:`memvault.changes.apply`; read by the review queue, retention, the
console and the dream."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, cast

from memvault.changes.plan import Change
from memvault.kg.store import Doc, DocumentStore

RUN, JOURNAL, REVIEW = "dream_run", "dream_journal", "review"
PENDING, PROGRESS = "dream_pending", "dream_progress"  # cleared once applied; per chunk
COMMUNITIES = "communities"  # the Leiden partition each run saw, with members
DISCOVERY = "discovery"  # inbox items: unseen → seen | dismissed


def journal_entry(
    kind: str, rid: str, op: str, before: dict[str, Any] | None, after: dict[str, Any] | None
) -> dict[str, Any]:
    """A journal entry: the record before a change whole (what undo restores) and after it
    as the fields that changed (``after_changes``; the rest is ``before``'s), so a tier
    move or a merge does not keep two copies of a record's text for the undo window. A tier
    move's digest cues (every word the text dropped, about as long as the original in
    ``before``) are kept as their hash: undo only compares them (:func:`as_left`)."""
    after = _cues_hashed(op, after)
    entry: dict[str, Any] = {"kind": kind, "id": rid, "op": op, "before": before}
    if before is None or after is None or set(before) - set(after):
        return entry | {"after": after}
    changed = {k: v for k, v in after.items() if k not in before or before[k] != v}
    return entry | {"after_changes": changed}


def after_of(entry: dict[str, Any]) -> dict[str, Any] | None:
    """The record after the entry's change, as journaled (entries written before
    ``after_changes`` existed hold it whole)."""
    if "after_changes" in entry:
        return {**(entry.get("before") or {}), **entry["after_changes"]}
    return cast(dict[str, Any] | None, entry.get("after"))


def as_left(current: dict[str, Any] | None, entry: dict[str, Any]) -> bool:
    """The record is still as the entry's change left it: undo restores it without force."""
    after = after_of(entry)
    return current == after or (
        current is not None and _cues_hashed(str(entry.get("op", "")), current) == after
    )


def _cues_hashed(op: str, record: dict[str, Any] | None) -> dict[str, Any] | None:
    digest = ((record or {}).get("metadata") or {}).get("digest")
    if record is None or not op.startswith("tiers.") or "cues" not in (digest or {}):
        return record
    assert isinstance(digest, dict)
    kept = {k: v for k, v in digest.items() if k != "cues"}
    kept["cues_sha256"] = hashlib.sha256(str(digest["cues"]).encode()).hexdigest()
    return {**record, "metadata": {**record["metadata"], "digest": kept}}


def dump_change(change: Change) -> dict[str, Any]:
    return change.model_dump(mode="json")


def judged_until(runs: Sequence[Doc]) -> datetime | None:
    """When the newest applied (not undone) dream that judged statement updates looked from
    (``runs``: applied run documents, newest first): the statements written until then have
    the dream's verdict, a link or none; later ones are judged provisionally by recall."""
    for run in runs:
        found = (run.body.get("stages") or {}).get("updates") or {}
        if "statements_read" in found and run.body.get("now"):
            return datetime.fromisoformat(run.body["now"])
    return None


def last_ops(
    store: DocumentStore, namespace: str, ids: Sequence[str], runs: int = 10
) -> dict[str, str]:
    """record id → the op of the newest applied dream change to it, looked for in the
    journals of the newest ``runs`` applied runs (a verdict is rare: a bounded scan)."""
    want, out = set(ids), {}
    for run in store.list_docs(namespace, RUN, status="applied", limit=runs):
        for journal in store.get_docs(namespace, JOURNAL, list(run.body.get("journal", []))):
            for entry in journal.body.get("entries", []):
                if entry["id"] in want:
                    out[entry["id"]] = entry["op"]  # later entries of the run win
        want -= set(out)
        if not want:
            break
    return out


def rejected_ops(store: DocumentStore, namespace: str) -> dict[tuple[str, str, str], str]:
    """(kind, target id, op) of every change a human rejected → the review item's id."""
    out: dict[tuple[str, str, str], str] = {}
    for d in store.list_docs(namespace, REVIEW, status="rejected", limit=100_000):
        for c in d.body.get("changes", []):
            for r in c.get("reasons", []):
                out[(c["kind"], c["target_id"], r["op"])] = d.id
    return out


_VOLATILE = {
    "id", "created_at", "access_count", "last_accessed", "reinforced_count",
    "last_reinforced_at", "cooldown_until", "importance", "confidence",
}  # fmt: skip


def change_key(members: Sequence[Change]) -> str:
    """A review item's id from what its changes do: the same change proposed by a later dream
    (the same record, op and changed values) gets the same id, so the queue holds it once and
    a rejection is remembered until the evidence changes. Use counts and scores that move
    between dreams are left out."""
    parts = []
    for c in sorted(members, key=lambda c: (c.kind, c.target_id, c.op)):
        before, after = c.before or {}, c.after or {}
        changed = {
            k: (after.get(k) is not None) if k == "expired_at" else after.get(k)  # when: the run's
            for k in sorted(set(before) | set(after))
            if k not in _VOLATILE and before.get(k) != after.get(k)
        }
        target = c.target_id if c.before is not None else ""  # a creation's id is new each run
        parts.append([c.kind, target, c.op, changed])
    digest = hashlib.blake2b(
        json.dumps(parts, sort_keys=True, default=str).encode(), digest_size=10
    )
    return "rv_" + digest.hexdigest()


def review_doc(
    review_id: str,
    run_id: str,
    why: list[dict[str, str]],
    changes: Sequence[Change],
    now: datetime,
    due_days: float,
) -> Doc:
    """A pending review item: its changes, every reason it waits (code and words), when it
    is due, and its history."""
    return Doc(
        REVIEW,
        review_id,
        {
            "run_id": run_id,
            "reason": "; ".join(r["text"] for r in why) or "proposed",
            "reasons": why,
            "changes": [dump_change(c) for c in changes],
            "due_at": (now + timedelta(days=due_days)).isoformat(),
            "history": [{"at": now.isoformat(), "event": "queued"}],
        },
        status="pending",
        created_at=now,
    )
