"""Review governance: the queue learns from the humans who answer it.

Each op (``consolidate.supersede``, ``hygiene.cull``, ...) has an auto-approve threshold, at
first ``auto_approve_confidence``. Every decision on a review item is counted per op and
reason. A rejection tightens the thresholds of the item's ops by ``step`` (a kind that is
often wrong waits for a human more); ``loosen_after`` approvals in a row, with no rejection
between, loosen them by ``step`` (a kind humans always approve stops crowding the queue).
Thresholds stay within ``min_threshold``..``max_threshold``. Every move is journaled as a
``policy_change`` document and shown by ``memvault review policy``; ``reset`` returns every op
to the default, journaled too.

The state is one ``review_policy`` document per namespace, written in the same transaction
as the decision that moved it. The calibration itself is a pure function.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memvault.config import ReviewSettings
from memvault.kg.model import new_id
from memvault.kg.store import Doc, DocumentStore

POLICY, POLICY_CHANGE = "review_policy", "policy_change"
_ID = "policy"


@dataclass
class PolicyState:
    thresholds: dict[str, float] = field(default_factory=dict)
    streaks: dict[str, int] = field(default_factory=dict)  # approvals in a row, per op
    # per op, then per reason code: {"approved": n, "rejected": n}
    decisions: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    # per op: recall verdicts on records that op changed last {"correct": n, "incorrect": n, ...}
    outcomes: dict[str, dict[str, int]] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        return {
            "thresholds": self.thresholds,
            "streaks": self.streaks,
            "decisions": self.decisions,
            "outcomes": self.outcomes,
        }


@dataclass(frozen=True)
class Move:
    op: str
    before: float
    after: float
    why: str


def load(store: DocumentStore, namespace: str) -> PolicyState:
    found = store.get_docs(namespace, POLICY, [_ID])
    if not found:
        return PolicyState()
    b = found[0].body
    return PolicyState(
        dict(b["thresholds"]),
        dict(b["streaks"]),
        dict(b["decisions"]),
        dict(b.get("outcomes", {})),
    )


def calibrate(
    state: PolicyState,
    ops: list[str],
    codes: list[str],
    decision: str,
    s: ReviewSettings,
    default: float,
) -> list[Move]:
    """Count one decision (``approved`` | ``rejected``) on an item with these ops and reason
    codes, move thresholds as the rules say, and return the moves."""
    moves: list[Move] = []
    for op in dict.fromkeys(ops):
        per = state.decisions.setdefault(op, {})
        for code in codes or ["proposed"]:
            count = per.setdefault(code, {"approved": 0, "rejected": 0})
            count[decision] += 1
        if not s.calibrate:
            continue
        was = state.thresholds.get(op, default)
        if decision == "rejected":
            state.streaks[op] = 0
            now = min(s.max_threshold, round(was + s.step, 4))
            why = "a rejection: stricter"
        else:
            state.streaks[op] = state.streaks.get(op, 0) + 1
            if state.streaks[op] < s.loosen_after:
                continue
            state.streaks[op] = 0
            now = max(s.min_threshold, round(was - s.step, 4))
            why = f"{s.loosen_after} approvals in a row: looser"
        if now != was:
            state.thresholds[op] = now
            moves.append(Move(op, was, now, why))
    return moves


def decision_docs(
    store: DocumentStore,
    namespace: str,
    item: Doc,
    decision: str,
    now: datetime,
    s: ReviewSettings,
    default: float,
) -> list[Doc]:
    """The documents that record a decision on ``item``: the updated policy, and one
    ``policy_change`` per threshold it moved."""
    state = load(store, namespace)
    ops = [c["reasons"][0]["op"] for c in item.body.get("changes", []) if c.get("reasons")]
    codes = [r["code"] for r in item.body.get("reasons", [])]
    moves = calibrate(state, ops, codes, decision, s, default)
    docs = [Doc(POLICY, _ID, state.body(), created_at=now)]
    docs += [
        Doc(
            POLICY_CHANGE,
            new_id(),
            {"op": m.op, "from": m.before, "to": m.after, "why": m.why, "review_id": item.id},
            created_at=now,
        )
        for m in moves
    ]
    return docs


def outcome_docs(
    store: DocumentStore, namespace: str, ops: Sequence[str], verdict: str, now: datetime
) -> list[Doc]:
    """Count a recall verdict against the ops that last changed the judged records: how the
    auto-approved changes turn out when someone reads them (statistics beside the review
    decisions; thresholds move only on decisions)."""
    if not ops:
        return []
    state = load(store, namespace)
    for op in ops:
        per = state.outcomes.setdefault(op, {"correct": 0, "incorrect": 0, "ambiguous": 0})
        per[verdict] = per.get(verdict, 0) + 1
    return [Doc(POLICY, _ID, state.body(), created_at=now)]


def reset_docs(store: DocumentStore, namespace: str, now: datetime, default: float) -> list[Doc]:
    """Every op back to the default threshold (counts kept), journaled."""
    state = load(store, namespace)
    docs = [
        Doc(
            POLICY_CHANGE,
            new_id(),
            {"op": op, "from": t, "to": default, "why": "reset by an operator"},
            created_at=now,
        )
        for op, t in sorted(state.thresholds.items())
        if t != default
    ]
    state.thresholds, state.streaks = {}, {}
    return [Doc(POLICY, _ID, state.body(), created_at=now), *docs]


def describe(
    store: DocumentStore, namespace: str, default: float, limit: int = 50
) -> dict[str, Any]:
    """What ``memvault review policy`` shows: thresholds, decision counts, recent moves."""
    state = load(store, namespace)
    return {
        "default_threshold": default,
        "thresholds": state.thresholds,
        "approvals_in_a_row": state.streaks,
        "decisions": state.decisions,
        "recall_verdicts": state.outcomes,
        "changes": [
            {"at": d.created_at.isoformat() if d.created_at else None, **d.body}
            for d in store.list_docs(namespace, POLICY_CHANGE, limit=limit)
        ],
    }
