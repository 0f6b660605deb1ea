"""Is a capitalised run opened by a given name a person? The offline typer
(``memvault.language.kinds``) against hand labels on real chats: the multi-word names the
rules typed ``person`` in people's own ShareGPT turns (``bench/sharegpt.py``), labelled
person / none by reading each in its turn (fictional characters count as persons; runs whose
span is wrong, "Emma Ben's sibling", were left out).

- ``bench/data/sharegpt_people_dev.json``: 76 runs (``--sample 101``), read while building
  the rule;
- ``bench/data/sharegpt_people_test.json``: 66 other runs (``--sample 202``, those in dev
  removed), labelled before the rule was built.

Both were drawn with the typer of 763a885 (before the rule): ``--sample`` draws with today's
typer, so the same seed now gives other runs.

Precision: persons among the runs typed ``person``; kept: the labelled persons still typed
``person`` (every run in the files was typed person by the rules before the change).

    .venv/bin/python bench/person_runs.py [--labels bench/data/sharegpt_people_test.json]
    .venv/bin/python bench/person_runs.py --sample 101 --count 80   # draw runs to label
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from memvault.ingest.rules import extract
from memvault.language.kinds import kind_of

HERE = Path(__file__).resolve().parent


def sample(seed: int, count: int) -> list[dict[str, str]]:
    """Multi-word runs the rules type ``person`` in people's turns, one per conversation."""
    sys.path.insert(0, str(HERE))
    from sharegpt import conversations

    convs = conversations()
    random.Random(seed).shuffle(convs)
    seen: set[str] = set()
    out: list[dict[str, str]] = []
    for conv in convs:
        for speaker, text in conv:
            if speaker != "user" or len(text) > 3000:
                continue
            runs = [
                e.name
                for e in extract(text, speaker="user").entities
                if e.type == "person" and len(e.name.split()) > 1 and e.name.lower() not in seen
            ]
            if runs:
                seen.add(runs[0].lower())
                at = text.find(runs[0])
                out.append({"name": runs[0], "context": text[max(0, at - 80) : at + 120]})
                break
        if len(out) >= count:
            break
    return out


def score(gold: dict[str, str]) -> dict[str, object]:
    typed = {name: kind_of(name) == "person" for name in gold}
    persons = [n for n, kind in gold.items() if kind == "person"]
    right = sum(typed[n] for n in persons)
    given = sum(typed.values())
    return {
        "runs": len(gold),
        "persons": len(persons),
        "typed_person": given,
        "precision": round(right / given, 3) if given else None,
        "kept": round(right / len(persons), 3) if persons else None,
        "wrong": sorted(n for n in gold if typed[n] != (gold[n] == "person")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=Path, default=HERE / "data/sharegpt_people_dev.json")
    parser.add_argument("--sample", type=int, help="draw runs to label with this seed instead")
    parser.add_argument("--count", type=int, default=80)
    args = parser.parse_args()
    if args.sample is not None:
        for run in sample(args.sample, args.count):
            print(json.dumps(run, ensure_ascii=False))
        return
    gold: dict[str, str] = json.loads(args.labels.read_text())
    print(
        json.dumps(
            {"benchmark": "person_runs", "labels": args.labels.name, **score(gold)}, indent=2
        )
    )


if __name__ == "__main__":
    main()
