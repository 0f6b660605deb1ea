"""Do vague catch-all notes become sticky under access feedback (issue 33 item 6)? One
person's notes (bench/sticky_data.py) and a stream of questions, 30% vague; after every
recall the agent records access on its top 3 (``record_access``), one simulated hour apart.
The same stream runs on a copy of the vault without feedback. Over the second half of the
stream: the share of top-3 places taken by catch-all notes (with feedback / without: the
"stickiness ratio", goal ≤ 1.1) and, for the questions about a topic, whether its note is in
the top 3 (feedback must not make that worse). Per split (dev topics and vague wordings,
test ones); ``--recall KEY=JSON`` (repeat) adds variants with a recall setting changed (or
``--recall '{"a": 1, "b": 2}'`` for several).

    .venv/bin/python bench/sticky_feedback.py --queries 300 --seed 5
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from currency_heldout import recall_variants
from sticky_data import CATCH_ALL, TOPICS, Question, notes, questions

from memvault import MemVault


def stream(
    db: Path,
    qs: list[Question],
    ids: dict[str, str],
    feedback: bool,
    recall: dict[str, Any],
    dream_every: int,
    confirm: bool,
) -> dict[str, float]:
    catch_all = {ids[t] for t in CATCH_ALL}
    topic_ids = [ids[t] for t, _ in TOPICS]
    now = datetime(2026, 4, 10, 8, tzinfo=UTC)
    slots = catch_slots = found = asked = 0
    with MemVault.open(db, recall=recall) as vault:
        for i, q in enumerate(qs):
            now += timedelta(hours=1)
            hits = vault.recall(q.text, k=3, now=now)
            sources = [
                h.id if h.kind == "episode" else (h.source_episode_ids or [""])[0] for h in hits
            ]
            if feedback:
                vault.record_access([h.id for h in hits], now=now)
                answer = topic_ids[q.target] if q.target is not None else None
                if confirm and answer in sources:
                    vault.reinforce([answer], now=now)
            if dream_every and (i + 1) % dream_every == 0:
                vault.dream(apply=True, force=True, now=now)
            if i < len(qs) // 2:
                continue
            slots += len(sources)
            catch_slots += sum(s in catch_all for s in sources)
            if q.target is not None:
                asked += 1
                found += topic_ids[q.target] in sources
    return {
        "catch_all_share": round(catch_slots / max(slots, 1), 4),
        "topic_hit_at_3": round(found / max(asked, 1), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--vague", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument(
        "--confirm",
        action="store_true",
        help="The agent also confirms the note that answered a topic question (reinforce).",
    )
    parser.add_argument(
        "--dream-every", type=int, default=24, help="A dream after this many questions (0: none)."
    )
    parser.add_argument("--recall", action="append", default=[], metavar="KEY=JSON")
    args = parser.parse_args()
    variants = recall_variants(args.recall)
    result: dict[str, Any] = {"benchmark": "sticky_feedback", "queries": args.queries,
                              "vague": args.vague, "seed": args.seed,
                              "dream_every": args.dream_every, "confirm": args.confirm}  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base.db"
        items = notes(args.seed)
        with MemVault.open(base) as vault:
            written = vault.write_many(
                [{"content": n["content"], "occurred_at": n["occurred_at"]} for n in items],
                now=datetime(2026, 4, 10, tzinfo=UTC),
            )
        ids = {str(n["content"]): eid for n, eid in zip(items, written.episode_ids, strict=True)}
        for name, over in variants.items():
            for split in ("dev", "test"):
                qs = questions(args.queries, split, args.vague, args.seed)
                row: dict[str, Any] = {}
                for feedback in (False, True):
                    db = Path(tmp) / f"{split}-{feedback}.db"
                    shutil.copy(base, db)
                    row["with" if feedback else "without"] = stream(
                        db, qs, ids, feedback, over, args.dream_every, args.confirm
                    )
                    db.unlink()
                row["stickiness"] = round(
                    row["with"]["catch_all_share"] / max(row["without"]["catch_all_share"], 1e-9),
                    3,
                )
                result[f"{name} {split}"] = row
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
