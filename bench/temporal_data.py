"""A generated temporal-update benchmark in the evaluation contract's format (seeded).

Synthetic people talk to an assistant over about a year and a half, a session every one to
three weeks. Their city, employer, team, diet and partner change one to three times, each
change said in one of several phrasings (many of which no extraction rule knows); their pets
accumulate (a second pet does not replace the first: those facts must coexist). Between the
statements: small talk that shares words with the questions ("the new office", "moving
boxes", "my old team lunch"), so keyword overlap alone does not find the answer.

Questions, dated after the last session:
- ``current``: "Where does Ana live now?"; evidence: the newest statement; ``outdated_turn_ids``:
  every earlier statement of that attribute;
- ``past``: "Where did Ana live before moving to Porto?"; evidence: the statement just before;
- ``coexist``: "What pets does Ana have?"; evidence: every pet statement.

    .venv/bin/python bench/temporal_data.py --people 12 --seed 7 --out /tmp/temporal
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

NAMES = [
    "Ana",
    "Bruno",
    "Chloe",
    "Dario",
    "Elif",
    "Farid",
    "Greta",
    "Hiro",
    "Ines",
    "Jonas",
    "Kemal",
    "Lucia",
    "Mateo",
    "Nadia",
    "Oskar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sven",
    "Tara",
]
CITIES = [
    "Lisbon",
    "Porto",
    "Berlin",
    "Hamburg",
    "Madrid",
    "Valencia",
    "Lyon",
    "Ghent",
    "Utrecht",
    "Krakow",
    "Turin",
    "Bergen",
    "Graz",
    "Bilbao",
    "Aarhus",
    "Brno",
]
EMPLOYERS = [
    "Helio Labs",
    "Northwind",
    "Bluefin Analytics",
    "Quarry Systems",
    "Tidewater",
    "Orchard Health",
    "Lumen Works",
    "Copperleaf",
    "Stackhouse",
    "Meridian Bank",
]
TEAMS = ["payments", "search", "platform", "data science", "mobile", "security", "growth"]
DIETS = ["vegetarian", "vegan", "pescatarian", "gluten-free", "eating everything again"]
PARTNERS = ["Sam", "Alex", "Robin", "Jamie", "Noor", "Kai", "Mika", "Eli", "Sasha"]
PETS = [
    ("dog", "Pepper"),
    ("cat", "Miso"),
    ("rabbit", "Clover"),
    ("parrot", "Kiwi"),
    ("cat", "Tofu"),
    ("dog", "Biscuit"),
]

SAY = {
    "city": [
        "I live in {x}.",
        "We finally moved to {x}! The boxes are still everywhere.",
        "Just settled into our new flat in {x}.",
        "Since last month I'm based in {x}.",
        "Big change: we relocated to {x} for good.",
        "Writing from {x}, which is home now.",
    ],
    "employer": [
        "I work at {x}.",
        "I started at {x} last week.",
        "Today was my first day at {x}.",
        "I switched jobs, I'm at {x} now.",
        "Signed the contract with {x}, starting Monday.",
    ],
    "team": [
        "I'm on the {x} team.",
        "They moved me to the {x} team.",
        "My new team is {x}.",
        "As of this sprint I'm working with the {x} folks.",
    ],
    "diet": [
        "I'm {x}.",
        "I decided to go {x} this month.",
        "Quick note for recipes: I'm {x} now.",
        "These days I'm {x}, so keep that in mind for meal plans.",
    ],
    "partner": [
        "My partner {x} says hi.",
        "I've been seeing {x} for a few weeks now.",
        "{x} and I moved in together.",
        "I'm with {x} now, we met at a climbing gym.",
    ],
}
QUESTIONS = {
    "city": ("Where does {n} live now?", "Where did {n} live before moving to {cur}?"),
    "employer": ("Where does {n} work now?", "Where did {n} work before {cur}?"),
    "team": ("Which team is {n} on now?", "Which team was {n} on before {cur}?"),
    "diet": ("What is {n}'s diet now?", "What was {n}'s diet before being {cur}?"),
    "partner": ("Who is {n}'s partner now?", "Who was {n}'s partner before {cur}?"),
}
SMALL_TALK = [
    "Can you suggest a podcast for the commute?",
    "The new office coffee machine is broken again.",
    "I still have moving boxes from years ago in the basement.",
    "My old team lunch was fun, we talked about travel.",
    "Remind me to call my mother on Sunday.",
    "What's a good stretch after running?",
    "I watched a documentary about deep sea fish.",
    "Work was busy today, lots of meetings.",
    "Any tips for keeping basil alive on a windowsill?",
    "I want to learn some basic Italian phrases.",
    "The weather here has been grey all week.",
    "Can you help me plan a weekend hike?",
    "I'm reading a novel about a lighthouse keeper.",
    "We should eat out somewhere new this weekend.",
    "My laptop battery dies so fast lately.",
]
ASSISTANT = [
    "Got it, I'll keep that in mind.",
    "Thanks for telling me!",
    "That sounds like a big step.",
    "Noted. Anything else on your mind?",
    "Happy to help with that.",
]


@dataclass
class Person:
    name: str
    conv: str
    values: dict[str, list[str]] = field(default_factory=dict)
    statements: dict[str, list[str]] = field(default_factory=dict)  # attribute → turn ids
    pets: list[str] = field(default_factory=list)  # turn ids


def _plan(rng: random.Random, person: Person) -> list[tuple[int, str, str]]:
    """(session index, attribute, value): what is said in which session."""
    sessions = rng.randint(24, 34)
    events: list[tuple[int, str, str]] = []
    pools = {
        "city": CITIES,
        "employer": EMPLOYERS,
        "team": TEAMS,
        "diet": DIETS,
        "partner": PARTNERS,
    }
    for attr, pool in pools.items():
        changes = rng.randint(1, 3)
        values = rng.sample(pool, changes + 1)
        slots = sorted(rng.sample(range(sessions), changes + 1))
        person.values[attr] = values
        events += [(s, attr, v) for s, v in zip(slots, values, strict=True)]
    for s, (kind, pet) in zip(
        sorted(rng.sample(range(sessions), 2)), rng.sample(PETS, 2), strict=True
    ):
        events.append((s, "pet", f"{kind}:{pet}"))
    return [*sorted(events), (sessions - 1, "_end", "")]


def _pet_line(rng: random.Random, value: str, first: bool) -> str:
    kind, name = value.split(":")
    if first:
        return rng.choice([f"We adopted a {kind} named {name}.", f"Meet {name}, our new {kind}!"])
    return rng.choice(
        [
            f"We also got a {kind} called {name}, the house is lively.",
            f"{name} the {kind} joined the family too.",
        ]
    )


def generate(people: int, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rng = random.Random(seed)
    turns: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    for p in range(people):
        person = Person(name=NAMES[p % len(NAMES)], conv=f"person-{p:02d}")
        events = _plan(rng, person)
        when = datetime(2024, 1, 8, 19, tzinfo=UTC) + timedelta(days=rng.randint(0, 30))
        by_session: dict[int, list[tuple[str, str]]] = {}
        for s, attr, value in events:
            by_session.setdefault(s, []).append((attr, value))
        last = max(by_session)
        counter = 0
        for s in range(last + 1):
            when += timedelta(days=rng.randint(7, 21), minutes=rng.randint(0, 600))
            lines: list[tuple[str, str, str | None]] = []  # speaker, text, attribute
            for attr, value in by_session.get(s, []):
                if attr == "_end":
                    continue
                if attr == "pet":
                    text = _pet_line(rng, value, not person.pets)
                else:
                    text = rng.choice(SAY[attr]).format(x=value)
                lines.append((person.name, text, attr))
            for _ in range(rng.randint(2, 5)):
                lines.insert(
                    rng.randint(0, len(lines)), (person.name, rng.choice(SMALL_TALK), None)
                )
            for speaker, text, attr in lines:
                for who, said in ((speaker, text), ("Assistant", rng.choice(ASSISTANT))):
                    counter += 1
                    turn_id = f"{person.conv}:t{counter:04d}"
                    session = f"{person.conv}:s{s:02d}"
                    turns.append(turn(person.conv, session, when, turn_id, who, said))
                    if who == speaker and attr == "pet":
                        person.pets.append(turn_id)
                    elif who == speaker and attr:
                        person.statements.setdefault(attr, []).append(turn_id)
        asked_at = (when + timedelta(days=rng.randint(3, 20))).isoformat()
        questions += _questions(person, asked_at)
    return turns, questions


def _questions(person: Person, asked_at: str) -> list[dict[str, Any]]:
    out = []
    for attr, (current_q, past_q) in QUESTIONS.items():
        ids, values = person.statements[attr], person.values[attr]
        base = {"conv_id": person.conv, "question_date": asked_at}
        out.append(
            {
                **base,
                "question_id": f"{person.conv}:{attr}:current",
                "question": current_q.format(n=person.name),
                "category_name": "current",
                "evidence_turn_ids": [ids[-1]],
                "outdated_turn_ids": ids[:-1],
            }
        )
        out.append(
            {
                **base,
                "question_id": f"{person.conv}:{attr}:past",
                "question": past_q.format(n=person.name, cur=values[-1]),
                "category_name": "past",
                "evidence_turn_ids": [ids[-2]],
            }
        )
    out.append(
        {
            "conv_id": person.conv,
            "question_date": asked_at,
            "question_id": f"{person.conv}:pets",
            "category_name": "coexist",
            "question": f"What pets does {person.name} have?",
            "evidence_turn_ids": list(person.pets),
        }
    )
    return out


def write(out: Path, people: int, seed: int) -> tuple[Path, Path]:
    return save(out, *generate(people, seed))


def turn(conv: str, session: str, when: datetime, turn_id: str, speaker: str, text: str) -> dict:
    """One turn in the evaluation contract's format."""
    return {"conv_id": conv, "session_id": session, "session_time_iso": when.isoformat(),
            "turn_id": turn_id, "speaker": speaker, "text": text}  # fmt: skip


def save(
    out: Path, turns: list[dict[str, Any]], questions: list[dict[str, Any]]
) -> tuple[Path, Path]:
    """The evaluation contract's two files in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    t, q = out / "turns.jsonl", out / "questions.jsonl"
    t.write_text("".join(json.dumps(r) + "\n" for r in turns), encoding="utf-8")
    q.write_text("".join(json.dumps(r) + "\n" for r in questions), encoding="utf-8")
    return t, q


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    paths = write(args.out, args.people, args.seed)
    print(json.dumps({"turns": str(paths[0]), "questions": str(paths[1])}))
