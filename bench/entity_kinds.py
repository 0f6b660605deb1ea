"""What kind of thing the offline rules say an entity is (issue 31.1), against hand-typed
LoCoMo names: precision of the types given (an entity typed ``unknown`` is no claim and
counts in coverage only), coverage (names given a type), and per type.

The labels: ``bench/data/locomo_types.json`` (dev: 101 true names from the entity-name
samples, typed by hand on 2026-11-25 and read while building the typer) and
``bench/data/locomo_types_test.json`` (test: the other 224 distinct names the shipped rules
make over LoCoMo, typed by hand on 2026-11-26 before the typer was changed; ``none`` = not
a name, so any type given to it is wrong; 40 names whose kind the turns leave open were left
out). Kinds: person (pets too), place, org, work (book, film, song, game: the type ``thing``),
thing, event, concept.

Each name is looked for in every LoCoMo turn that holds it (as a word); the turn goes through
the rules' extraction with its speaker, and the name's type is the first one that is not
``unknown`` across its turns, in order, as the resolver keeps it.

    .venv/bin/python bench/entity_kinds.py [--labels bench/data/locomo_types_test.json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

from memvault.ingest.rules import extract

HERE = Path(__file__).resolve().parent
AS_TYPE = {"person": "person", "place": "place", "org": "organization", "work": "thing",
           "thing": "thing", "event": "event", "concept": "concept", "none": None}  # fmt: skip


def typed(names: list[str], turns: list[dict]) -> dict[str, str]:
    """Each name's type as the rules give it over the turns that hold it."""
    found = {n: "unknown" for n in names}
    patterns = {n: re.compile(rf"(?<!\w){re.escape(n)}(?!\w)") for n in names}
    for t in turns:
        text = t["text"]
        waiting = [n for n in names if found[n] == "unknown" and patterns[n].search(text)]
        if not waiting:
            continue
        got = {e.name.lower(): e.type for e in extract(text, speaker=t.get("speaker")).entities}
        for n in waiting:
            kind = got.get(n.lower(), "unknown")
            if kind != "unknown":
                found[n] = kind
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=HERE.parent.parent / "shared/datasets/locomo")
    parser.add_argument("--labels", type=Path, default=HERE / "data/locomo_types.json")
    args = parser.parse_args()
    gold: dict[str, str] = json.loads(args.labels.read_text())
    turns = [json.loads(line) for line in (args.data / "turns.jsonl").read_text().splitlines()]
    got = typed(sorted(gold), turns)
    given = {n: k for n, k in got.items() if k != "unknown"}
    right = {n for n, k in given.items() if AS_TYPE[gold[n]] == k}
    names = [n for n in gold if gold[n] != "none"]
    per: dict[str, Counter[str]] = {}
    for n, k in given.items():
        per.setdefault(k, Counter())["right" if n in right else "wrong"] += 1
    result = {
        "benchmark": "entity_kinds",
        "labels": args.labels.name,
        "names": len(names),
        "not_names": len(gold) - len(names),
        "typed": len(given),
        "precision": round(len(right) / len(given), 3) if given else None,
        "coverage": round(sum(1 for n in names if n in given) / len(names), 3),
        "per_type": {k: dict(v) for k, v in sorted(per.items())},
        "wrong": {n: f"{given[n]} (is {gold[n]})" for n in sorted(given) if n not in right},
    }
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
