"""Review calibration on a replayed stream of decisions with a known right answer.

Four kinds of proposal, each right with its own (hidden) rate, all proposed with the same
overconfident spread of confidence (0.7..1.0): a supersede that is right 97% of the time, a
near-duplicate merge right 99%, a cull right 75%, a lint fix right 55%. Runs of 40 proposals
go through memvault's routing (``changes.routing.route``); a human answers every queued item
correctly (approve what is right, reject what is wrong), and those decisions feed the policy
(``changes.policy.calibrate``). Printed: items queued and wrong changes auto-approved, with the
static threshold (0.8) and with calibration, per kind and in total.

    .venv/bin/python bench/review_calibration.py --proposals 2000 --seed 7
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter

from memvault.changes.plan import Change, Reason
from memvault.changes.policy import PolicyState, calibrate
from memvault.changes.routing import reasons, route
from memvault.config import ConsolidateSettings, ReviewSettings

KINDS = {
    "consolidate.supersede": 0.97,
    "consolidate.merge_episode": 0.99,
    "hygiene.cull": 0.75,
    "lint.fix": 0.55,
}


def stream(n: int, rng: random.Random) -> list[tuple[Change, bool]]:
    out = []
    for i in range(n):
        op = rng.choice(list(KINDS))
        right = rng.random() < KINDS[op]
        change = Change(
            kind="fact",
            target_id=f"f{i}",
            before={},
            after={},
            reasons=[Reason(op=op, why="replayed", confidence=rng.uniform(0.7, 1.0))],
        )
        out.append((change, right))
    return out


def replay(items: list[tuple[Change, bool]], calibrated: bool, batch: int) -> dict[str, object]:
    s, review = ConsolidateSettings(), ReviewSettings(calibrate=calibrated)
    state = PolicyState()
    queued: Counter[str] = Counter()
    wrong_auto: Counter[str] = Counter()
    for start in range(0, len(items), batch):
        run = items[start : start + batch]
        truth = {c.target_id: right for c, right in run}
        auto, groups = route([c for c, _ in run], s, review, state.thresholds)
        for c in auto:
            if not truth[c.target_id]:
                wrong_auto[c.op] += 1
        for members in groups:
            c = members[0]
            queued[c.op] += 1
            codes = [r["code"] for r in reasons(members, s, review, state.thresholds)]
            decision = "approved" if truth[c.target_id] else "rejected"
            calibrate(state, [c.op], codes, decision, review, s.auto_approve_confidence)
    return {
        "queued": sum(queued.values()),
        "wrong_auto_approved": sum(wrong_auto.values()),
        "per_kind": {
            op: {"queued": queued[op], "wrong_auto_approved": wrong_auto[op]} for op in KINDS
        },
        "final_thresholds": {
            op: state.thresholds.get(op, s.auto_approve_confidence) for op in KINDS
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proposals", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    items = stream(args.proposals, random.Random(args.seed))
    wrong = sum(not right for _, right in items)
    print(
        json.dumps(
            {
                "benchmark": "review_calibration",
                "proposals": args.proposals,
                "wrong_proposals": wrong,
                "static_threshold": replay(items, calibrated=False, batch=args.batch),
                "calibrated": replay(items, calibrated=True, batch=args.batch),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
