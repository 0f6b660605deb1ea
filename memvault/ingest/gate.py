"""The governance gate at write time (``hold_facts_below``, off by default)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from memvault.changes.docs import RUN, review_doc
from memvault.changes.plan import Change, Reason
from memvault.kg.model import Fact, new_id
from memvault.kg.store import Doc


def hold_for_review(
    namespace: str, held: Sequence[Fact], now: datetime, below: float, due_days: float
) -> list[Doc]:
    """The governance gate: facts extracted below ``below`` confidence become review items
    (one "write" run per batch), written in the write's transaction; approving one creates
    the fact through the applier (journaled, undoable with its run)."""
    if not held:
        return []
    run_id = f"write_{now.strftime('%Y%m%dT%H%M%S')}_{uuid.uuid4().hex[:6]}"
    items = [
        review_doc(
            new_id(),
            run_id,
            [{"code": "low_confidence", "text": f"held at write: {f.confidence:.2f} < {below:g}"}],
            [
                Change(
                    kind="fact",
                    target_id=f.id,
                    before=None,
                    after=f.model_dump(mode="json"),
                    reasons=[Reason(op="ingest.hold", why=f.statement, confidence=f.confidence)],
                )
            ],
            now,
            due_days,
        )
        for f in held
    ]
    run = Doc(
        RUN,
        run_id,
        {"kind": "write", "run_id": run_id, "journal": [], "review_ids": [d.id for d in items]},
        status="proposed",
        created_at=now,
    )
    return [run, *items]
