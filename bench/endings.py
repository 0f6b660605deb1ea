"""Something that ended, asked about now (bench/endings_data.py): per case, whether the
ending ranks above every earlier memory naming the thing for the question about now, whether
each earlier memory is still in the top 10 (nothing is lost), and whether the question about
the past still finds its answer in the top 3; before and after a dream, per split.
``--haystack DIR``: each case among the turns of one real conversation between two friends
(LoCoMo's, read from DIR in the evaluation contract's format, re-timed over the case's months),
so the ending must be found among hundreds of other memories.

    .venv/bin/python bench/endings.py
    .venv/bin/python bench/endings.py --haystack ../shared/datasets/locomo

``--latency VAULT``: instead, the recall time of every question of ``--questions`` (default
LoCoMo's) on a copy of a vault built from its turns (bench/recall_fusion.py's cache), with and
without the endings step, interleaved question by question: p50 / p95 in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from endings_data import CASES

from memvault import MemVault

START = datetime(2025, 1, 10, 18, tzinfo=UTC)


def judge(vault: MemVault, ns: str, ids: list[str], now: str, past: str, at: datetime) -> dict:
    *before, ending = ids
    hits = [h.id for h in vault.recall(now, namespace=ns, k=10, now=at)]
    lead = ending in hits and all(
        b not in hits or hits.index(ending) < hits.index(b) for b in before
    )
    kept = all(b in hits for b in before) or all(
        b in [h.id for h in vault.recall(past, namespace=ns, k=10, now=at)] for b in before[:1]
    )
    found = before[0] in [h.id for h in vault.recall(past, namespace=ns, k=3, now=at)]
    return {"ending_leads": lead, "earlier_kept": kept, "past_found": found}


def haystack(data: Path | None) -> list[list[dict]]:
    if data is None:
        return []
    by: dict[str, list[dict]] = defaultdict(list)
    with (data / "turns.jsonl").open(encoding="utf-8") as f:
        for line in f:
            t = json.loads(line)
            if str(t.get("text") or "").strip():
                by[t["conv_id"]].append(t)
    return [by[c] for c in sorted(by)]


def filler(turns: list[dict], months: int) -> list[dict]:
    """The conversation's turns in order, spread evenly over the case's months."""
    span = timedelta(days=30 * months).total_seconds()
    return [
        {
            "content": t["text"],
            "speaker": t["speaker"],
            "session_id": f"filler-{t['session_id']}",
            "occurred_at": START + timedelta(seconds=span * n / len(turns)),
        }
        for n, t in enumerate(turns)
    ]


def latency(db: Path, questions: Path) -> dict:
    import shutil
    import time

    import numpy as np

    from memvault.eval.recall_eval import namespace_for, parse_session_time, read_jsonl

    asked = read_jsonl(questions, ("conv_id", "question_id", "question"))
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "v.db"
        shutil.copy(db, copy)
        vaults = {
            name: MemVault.open(copy, recall=recall)
            for name, recall in {
                "memvault": {},
                "without endings": {"group_endings": False},
            }.items()
        }
        times: dict[str, list[float]] = defaultdict(list)
        try:
            for n, q in enumerate(asked):
                ns, at = namespace_for(q["conv_id"]), q.get("question_date")
                now = parse_session_time(str(at)) if at else None
                order = list(vaults.items())
                for name, vault in order[::-1] if n % 2 else order:  # each goes first by turns
                    started = time.perf_counter()
                    vault.recall(q["question"], namespace=ns, k=10, now=now)
                    times[name].append(1000 * (time.perf_counter() - started))
        finally:
            for vault in vaults.values():
                vault.close()
    return {
        name: {"p50_ms": round(float(np.percentile(t, 50)), 1),
               "p95_ms": round(float(np.percentile(t, 95)), 1), "n": len(t)}
        for name, t in times.items()
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--haystack", type=Path, default=None)
    parser.add_argument("--latency", type=Path, default=None, help="a vault to time recall on")
    parser.add_argument(
        "--questions",
        type=Path,
        default=Path(__file__).resolve().parents[2] / "shared/datasets/locomo/questions.jsonl",
    )
    args = parser.parse_args()
    if args.latency is not None:
        json.dump({"benchmark": "endings_latency", **latency(args.latency, args.questions)},
                  sys.stdout, indent=2)  # fmt: skip
        print()
        return
    chats = haystack(args.haystack)
    rows: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    per_case = {}
    configs = {"memvault": {}, "without endings": {"group_endings": False}}
    with tempfile.TemporaryDirectory() as tmp:
        path, setups = Path(tmp) / "e.db", []
        with MemVault.open(path) as vault:
            for n, case in enumerate(CASES):
                ns = f"ending-{n}"
                if chats:
                    items = filler(chats[n % len(chats)], len(case.before) + 1)
                    vault.write_many(items, namespace=ns, defer_vectors=False)
                ids = []
                for m, text in enumerate((*case.before, case.ending)):
                    at = START + timedelta(days=30 * m)
                    e = vault.write(text, speaker=case.speaker, namespace=ns, occurred_at=at)
                    ids.append(e.id)
                setups.append((case, ns, ids, START + timedelta(days=30 * len(ids) + 5)))
        for stage in ("before_dream", "after_dream"):
            if stage == "after_dream":
                with MemVault.open(path) as vault:
                    for _, ns, _, at in setups:
                        vault.dream(namespace=ns, now=at, apply=True, force=True)
            for name, recall in configs.items():
                with MemVault.open(path, recall=recall) as vault:
                    for case, ns, ids, at in setups:
                        got = judge(vault, ns, ids, case.now, case.past, at)
                        per_case[f"{name}:{stage}:{case.family}"] = got
                        for key, ok in got.items():
                            rows[f"{name}:{stage}:{case.split}"][key].append(ok)
    out = {
        name: {key: round(sum(v) / len(v), 3) for key, v in got.items()}
        for name, got in sorted(rows.items())
    }
    head = {"benchmark": "endings", "cases": len(CASES), "haystack": str(args.haystack)}
    json.dump({**head, **out, "per_case": per_case},
              sys.stdout, indent=2)  # fmt: skip
    print()


if __name__ == "__main__":
    main()
