"""The review queue: proposals wait for a human, with their reasons, a due date and a history.

- **Submit** proposals straight to the queue (the lint's fixes): nothing changes until
  approved; an id already queued, whatever its status, is not queued again.
- **Approve** applies the item through the applier (journaled with its run, so undoing the
  run reverts it); an item whose records changed since it was proposed is marked ``stale``.
  **Reject** settles it. Both are counted by the review policy, which may move the item's
  ops' thresholds (:mod:`memvault.changes.policy`), in the same transaction.
- **Overdue** items are re-queued with a new due date and an entry in their history: never
  dropped, never applied by default.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from memvault.changes import policy
from memvault.changes.apply import Applier, ApplyResult
from memvault.changes.docs import JOURNAL, REVIEW, RUN, review_doc
from memvault.changes.plan import Change
from memvault.errors import ConflictError, InvalidInputError, NotFoundError
from memvault.kg.store import Batch, Doc


class ReviewQueue:
    def __init__(self, applier: Applier):
        self.applier, self.store = applier, applier.store
        self.s, self.default = applier.review, applier.s.auto_approve_confidence

    def submit(
        self,
        namespace: str,
        run_id: str,
        items: Sequence[tuple[str, str, list[Change]]],
        now: datetime,
        report: dict[str, Any],
    ) -> list[str]:
        """``items`` are (review id, reason, changes). Returns the ids queued."""
        known = {d.id for d in self.store.get_docs(namespace, REVIEW, [i for i, _, _ in items])}
        fresh = [(i, why, changes) for i, why, changes in items if i not in known]
        if not fresh:
            return []
        reviews = [
            review_doc(
                review_id,
                run_id,
                [{"code": "proposed", "text": why}],
                changes,
                now,
                self.s.due_days,
            )
            for review_id, why, changes in fresh
        ]
        run = Doc(
            RUN,
            run_id,
            {**report, "run_id": run_id, "journal": [], "review_ids": [d.id for d in reviews]},
            status="proposed",
            created_at=now,
        )
        self.store.apply(Batch(namespace=namespace, docs=[run, *reviews]))
        return [d.id for d in reviews]

    def approve(self, namespace: str, review_id: str, now: datetime) -> ApplyResult:
        item = self._pending(namespace, review_id)
        changes = [Change.model_validate(c) for c in item.body["changes"]]
        run_id = item.body["run_id"]
        batch, entries, skipped = self.applier.batch_for(namespace, changes)
        if skipped:
            stale = _settled(item, now, "stale", note="records changed since proposed")
            self.store.apply(Batch(namespace=namespace, docs=[stale]))
            raise ConflictError(
                f"review item {review_id} no longer applies: {len(skipped)} record(s) changed "
                "since it was proposed (marked stale; the next dream proposes afresh)"
            )
        run = self.applier.run_doc(namespace, run_id)
        journal_id = f"{run_id}:review:{review_id}"
        run_body = {**run.body, "journal": [*run.body["journal"], journal_id]}
        batch.docs = [
            *batch.docs,  # the persona layers' documents the changes write
            Doc(JOURNAL, journal_id, {"run_id": run_id, "entries": entries}, created_at=now),
            Doc(RUN, run_id, run_body, status=run.status, created_at=run.created_at),
            _settled(item, now, "approved"),
            *self._decided(namespace, item, "approved", now),
        ]
        self.store.apply(batch)
        return ApplyResult(run_id=run_id, applied=len(entries))

    def reject(self, namespace: str, review_id: str, now: datetime, note: str = "") -> None:
        item = self._pending(namespace, review_id)
        docs = [_settled(item, now, "rejected", note=note)]
        docs += self._decided(namespace, item, "rejected", now)
        self.store.apply(Batch(namespace=namespace, docs=docs))

    def requeue_overdue(self, namespace: str, now: datetime) -> list[str]:
        """Pending items past their due date get a new one and a line in their history."""
        due = now + timedelta(days=self.s.due_days)
        overdue = [
            d
            for d in self.store.list_docs(namespace, REVIEW, status="pending", limit=100_000)
            if d.body.get("due_at") and datetime.fromisoformat(d.body["due_at"]) < now
        ]
        docs = [
            Doc(
                REVIEW,
                d.id,
                {
                    **d.body,
                    "due_at": due.isoformat(),
                    "history": [
                        *d.body.get("history", []),
                        {"at": now.isoformat(), "event": "overdue: re-queued"},
                    ],
                },
                status="pending",
                created_at=d.created_at,
            )
            for d in overdue
        ]
        if docs:
            self.store.apply(Batch(namespace=namespace, docs=docs))
        return [d.id for d in docs]

    def policy(self, namespace: str) -> dict[str, Any]:
        return policy.describe(self.store, namespace, self.default)

    def reset_policy(self, namespace: str, now: datetime) -> int:
        docs = policy.reset_docs(self.store, namespace, now, self.default)
        self.store.apply(Batch(namespace=namespace, docs=docs))
        return len(docs) - 1

    def _decided(self, namespace: str, item: Doc, decision: str, now: datetime) -> list[Doc]:
        return policy.decision_docs(
            self.store, namespace, item, decision, now, self.s, self.default
        )

    def _pending(self, namespace: str, review_id: str) -> Doc:
        found = self.store.get_docs(namespace, REVIEW, [review_id])
        if not found:
            raise NotFoundError("review item", review_id, namespace)
        if found[0].status != "pending":
            raise InvalidInputError(
                f"review item {review_id} is already {found[0].status}", field="review_id"
            )
        return found[0]


def _settled(item: Doc, now: datetime, status: str, note: str | None = None) -> Doc:
    body = {
        **item.body,
        "settled_at": now.isoformat(),
        "history": [*item.body.get("history", []), {"at": now.isoformat(), "event": status}],
    }
    if note is not None:
        body["note"] = note
    return Doc(REVIEW, item.id, body, status=status, created_at=item.created_at)
