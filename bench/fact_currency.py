"""Facts held as current after a change of situation: does ``facts`` (valid at the question's
time) still hold a fact that only an outdated statement supports, and does it hold one from
the newest? On the held-out currency families (bench/currency_data.py: 0 and 2 dev, 1 and 3
test; phrasings no rule was written from) and on the temporal set (bench/temporal_data.py,
the phrasings the rules know), before any dream and after one dream per person.

For each "current" question (an attribute of the person, its newest statement and the
outdated ones): ``stale`` is the share of questions where some fact valid at the question's
time stands only on outdated statements (the old situation shown as the current one: lower
is better); ``newest`` the share where a fact valid then stands on the newest statement.

    .venv/bin/python bench/fact_currency.py --people 24 --seed 11  # temporal: 12 people, seed 7
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import currency_data
import temporal_data

from memvault import MemVault
from memvault.eval.recall_eval import (
    dream_each,
    ingest_turns,
    namespace_for,
    read_jsonl,
    read_turns,
)
from memvault.interop.jsonl import parse_session_time


def held(vault: MemVault, question: dict[str, Any]) -> tuple[bool, bool]:
    """(a fact valid at the question's time stands only on outdated turns, one stands on
    the newest turn)."""
    ns = namespace_for(question["conv_id"])
    at = parse_session_time(question["question_date"])
    facts = vault.facts(namespace=ns, as_of=at)
    ids = {i for f in facts for i in f.source_episode_ids}
    turn = {e.id: str(e.external_id) for e in vault.store.get_episodes(ns, sorted(ids))}
    outdated, newest = set(question["outdated_turn_ids"]), set(question["evidence_turn_ids"])
    stale = fresh = False
    for f in facts:
        said = {turn.get(i, "") for i in f.source_episode_ids}
        stale |= bool(said) and said <= outdated
        fresh |= bool(said & newest)
    return stale, fresh


def measure(name: str, module: Any, people: int, seed: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        turns_path, questions_path = module.write(Path(tmp), people, seed)
        turns = read_turns(turns_path)
        questions = [
            q
            for q in read_jsonl(questions_path, ("conv_id", "question_id", "question"))
            if q.get("category_name") == "current"
        ]
        with MemVault.open(Path(tmp) / "f.db") as vault:
            last = ingest_turns(vault, turns)
            for stage in ("before_dream", "after_dream"):
                if stage == "after_dream":
                    dream_each(vault, {namespace_for(c): t for c, t in last.items()})
                tally: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
                for q in questions:
                    tally[str(q.get("split") or "all")].append(held(vault, q))
                out[stage] = {
                    split: {
                        "n": len(rows),
                        "stale": round(sum(s for s, _ in rows) / len(rows), 4),
                        "newest": round(sum(f for _, f in rows) / len(rows), 4),
                    }
                    for split, rows in sorted(tally.items())
                }
    return {"set": name, **out}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=24)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--temporal-people", type=int, default=12)
    parser.add_argument("--temporal-seed", type=int, default=7)
    args = parser.parse_args()
    result = {
        "benchmark": "fact_currency",
        "people": args.people,
        "seed": args.seed,
        "sets": [
            measure("held-out currency", currency_data, args.people, args.seed),
            measure(
                "temporal (the rules' phrasings)",
                temporal_data,
                args.temporal_people,
                args.temporal_seed,
            ),
        ],
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
