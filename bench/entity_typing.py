"""Typing entities by the embedder, nearest type description (issue 31.1): tried, not
adopted. 101 distinct true names from bench/entity_names.py's LoCoMo samples, typed by hand
(``bench/data/locomo_types.json``: person, place, org, work, thing, event, concept), each
seen in the first LoCoMo turn that holds it. Three ways of asking MiniLM which of six type
descriptions a name is: the bare name; the turn with the name replaced by each description
("substitution"); "<name> is <description>." against the turn ("claim"). Prints accuracy
overall and on the half and 70% it is surest of (by the margin between its two best).

    .venv/bin/python bench/entity_typing.py
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from memvault.bootstrap import build_embedder
from memvault.config import Settings

HERE = Path(__file__).resolve().parent
AS_ENTITY_TYPE = {"person": "person", "place": "place", "org": "organization", "work": "thing",
                  "thing": "thing", "event": "event", "concept": "concept"}  # fmt: skip
DESCRIBED = {
    "person": "a person",
    "place": "a place",
    "organization": "a company or organisation",
    "thing": "a book, film, song, game or product",
    "event": "a holiday or event",
    "concept": "a language, nationality or field",
}


def asked(way: str, name: str, window: str) -> list[str]:
    if way == "bare":
        return [name, *DESCRIBED.values()]
    if way == "claim":
        return [window, *(f"{name} is {d}." for d in DESCRIBED.values())]
    return [window, *(window.replace(name, d) for d in DESCRIBED.values())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=HERE.parent.parent / "shared/datasets/locomo")
    args = parser.parse_args()
    gold: dict[str, str] = json.loads((HERE / "data/locomo_types.json").read_text())
    seen: dict[str, str] = {}
    for line in (args.data / "turns.jsonl").read_text().splitlines():
        text = json.loads(line)["text"]
        for name in gold:
            if name not in seen and name in text:
                at = text.find(name)
                seen[name] = text[max(0, at - 100) : at + len(name) + 100]
    embedder = build_embedder(Settings())
    result: dict[str, object] = {"benchmark": "entity_typing", "names": len(seen)}
    for way in ("bare", "substitution", "claim"):
        judged = []
        for name, window in seen.items():
            v = embedder.embed(asked(way, name, window))
            v = v / np.linalg.norm(v, axis=1, keepdims=True)
            sims = v[1:] @ v[0]
            best, second = np.argsort(-sims)[:2]
            guess = list(DESCRIBED)[best]
            judged.append((float(sims[best] - sims[second]), guess == AS_ENTITY_TYPE[gold[name]]))
        judged.sort(key=lambda x: -x[0])
        result[way] = {
            f"surest {share:.0%}": round(
                sum(ok for _, ok in judged[: int(len(judged) * share)]) / int(len(judged) * share),
                3,
            )
            for share in (0.5, 0.7, 1.0)
        }
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
