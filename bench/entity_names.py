"""Which capitalised words become entities, on real conversations (issue 31.1): LoCoMo's
turns written through the real pipeline with the offline rules, and a hand-labelled sample
of what the rules made entities (``bench/data/locomo_names.jsonl``: 240 entities drawn at
random, seed 31, from the rules at 191f8fc, their turns "sampled"; then every other entity
those turns made before or after the change; each labelled by reading its turn: a name of a
person, pet, place, organisation, title, product, event or language, or not). Reports, on
the sampled turns, the precision of what the rules make there (the share that are names),
the true names no entity holds any more, anything made there not yet labelled, and the
entity count over all conversations. The embedder plays no part (hashing, for speed).

    .venv/bin/python bench/entity_names.py
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from memvault import MemVault
from memvault.embed.hashing import HashingEmbedder
from memvault.eval.recall_eval import (
    EvalReport,
    ingest_turns,
    namespace_for,
    read_turns,
    usable_turns,
)
from memvault.kg.model import normalize_name

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=HERE.parent.parent / "shared/datasets/locomo")
    parser.add_argument(
        "--labels",
        type=Path,
        default=HERE / "data/locomo_names.jsonl",
        help="dev: locomo_names.jsonl; test: locomo_names_test.jsonl",
    )
    args = parser.parse_args()
    labels = [json.loads(line) for line in args.labels.read_text().splitlines() if line]
    label = {
        (r["conv_id"], r["turn_id"], r["name"].lower()): r["is_name"] for r in labels if r["name"]
    }
    path = args.data / "turns.jsonl"
    turns = read_turns(path)
    with tempfile.TemporaryDirectory() as tmp:
        vault = MemVault.open(Path(tmp) / "n.db", embedder=HashingEmbedder())
        try:
            report = EvalReport(k=10, turns=len(turns), questions=0)
            turns = usable_turns(turns, path, report, vault.settings.max_content_chars)
            ingest_turns(vault, turns, report=report)
            made = _made(vault, {(r["conv_id"], r["turn_id"]) for r in labels})
            total = sum(vault.store.counts(namespace_for(c))["entities"] for c in _convs(turns))
        finally:
            vault.close()
    sampled = {(r["conv_id"], r["turn_id"]) for r in labels if r["sampled"]}
    made_there = {(c, t, n) for (c, t), names in made.items() if (c, t) in sampled for n in names}
    judged = {x: _judge(x, label) for x in made_there}
    true_names = [
        r for r in labels if r["name"] and r["is_name"] and (r["conv_id"], r["turn_id"]) in sampled
    ]
    lost = [r["name"] for r in true_names if not _named(r, made)]
    result = {
        "benchmark": "entity_names",
        "turns_sampled": len(sampled),
        "entities_made_there": len(made_there),
        "precision": round(
            sum(v for v in judged.values() if v is not None)
            / max(sum(v is not None for v in judged.values()), 1),
            3,
        ),
        "names_there": len(true_names),
        "names_lost": sorted(lost),
        "unlabelled": sorted(f"{c} {t} {n}" for (c, t, n), v in judged.items() if v is None),
        "entities_in_all_namespaces": total,
    }
    json.dump(result, sys.stdout, indent=2)
    print()


def _judge(made: tuple[str, str, str], label: dict[tuple[str, str, str], bool]) -> bool | None:
    """An entity made in a turn (its names joined by " | ") is a name when any of its names
    is labelled one; None when none of them is labelled."""
    conv, turn, names = made
    found = [label[(conv, turn, n)] for n in names.split(" | ") if (conv, turn, n) in label]
    return any(found) if found else None


def _named(row: dict, made: dict[tuple[str, str], set[str]]) -> bool:
    """A name is kept when an entity of its turn is it, or holds it whole ("The Wheel of
    Time" for "Wheel of Time")."""
    name = normalize_name(row["name"])
    held = [normalize_name(n) for m in made[(row["conv_id"], row["turn_id"])] for n in m.split("|")]
    return any(m == name or f" {name} " in f" {m} " for m in held)


def _convs(turns: list[dict]) -> list[str]:
    return sorted({t["conv_id"] for t in turns})


def _made(vault: MemVault, wanted: set[tuple[str, str]]) -> dict[tuple[str, str], set[str]]:
    """(conversation, turn) → the lower-cased names and aliases of the entities its episode
    mentions, its speaker left out."""
    out: dict[tuple[str, str], set[str]] = defaultdict(set)
    by_conv: dict[str, list[str]] = defaultdict(list)
    for conv, turn in wanted:
        by_conv[conv].append(turn)
    for conv, turn_ids in by_conv.items():
        ns = namespace_for(conv)
        found = vault.store.episodes_by_external_id(ns, turn_ids)
        episodes = {e.id: e for e in vault.store.get_episodes(ns, list(found.values()))}
        mentions = vault.store.mentions_of(ns, list(episodes))
        entities = vault.store.get_entities(ns, [m.entity_id for m in mentions])
        names = {e.id: e.names() for e in entities}
        for m in mentions:
            e = episodes[m.episode_id]
            said = [n.lower() for n in names[m.entity_id]]
            if said[0] != (e.speaker or "").lower():
                # one entity, by all of its names: "Mel" is an alias of Melanie's
                out[(conv, e.external_id or "")].add(" | ".join(said))
    return out


if __name__ == "__main__":
    main()
