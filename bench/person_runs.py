"""Are the names the offline rules type ``person`` in real chats people? The typer
(``memvault.language.kinds``, by the name alone) against hand labels: names the rules typed
``person`` in people's own ShareGPT turns (``bench/sharegpt.py``), one per conversation,
labelled person / none by reading each in its turn (fictional characters count as persons;
names whose span is wrong, "Emma Ben's sibling", were left out).

- ``bench/data/sharegpt_people_dev.json``: 76 runs of several words (``--sample 101``) and
  69 single words (``--sample 303 --words one``), read while building the rules;
- ``bench/data/sharegpt_people_test.json``: 66 runs (``--sample 202``) and 50 single words
  (``--sample 404 --words one``), those in dev removed, labelled before the rules were
  built.

All were drawn with the typer of 763a885 (before these rules): ``--sample`` draws with
today's typer, so the same seed now gives other names.

Precision: persons among the names typed ``person``; kept: the labelled persons still typed
``person`` (every name in the files was typed person by the rules before the change). Per
length: one word, several.

    .venv/bin/python bench/person_runs.py [--labels bench/data/sharegpt_people_test.json]
    .venv/bin/python bench/person_runs.py --sample 101 --count 80 [--words one]   # to label
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


def sample(seed: int, count: int, several: bool) -> list[dict[str, str]]:
    """Names of several words (or of one) the rules type ``person`` in people's turns, one
    per conversation."""
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
                if e.type == "person"
                and e.name != "user"
                and (len(e.name.split()) > 1) == several
                and e.name.lower() not in seen
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
    """Precision and kept over ``gold``, overall and by the name's length."""
    return {
        **_score(gold),
        "by_length": {
            length: _score({n: k for n, k in gold.items() if (len(n.split()) > 1) == several})
            for length, several in (("one word", False), ("several", True))
        },
    }


def _score(gold: dict[str, str]) -> dict[str, object]:
    typed = {name: kind_of(name) == "person" for name in gold}
    persons = [n for n, kind in gold.items() if kind == "person"]
    right = sum(typed[n] for n in persons)
    given = sum(typed.values())
    return {
        "names": len(gold),
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
    parser.add_argument("--words", choices=("one", "several"), default="several")
    args = parser.parse_args()
    if args.sample is not None:
        for run in sample(args.sample, args.count, args.words == "several"):
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
