"""Held-out currency data: changes said in ways no rule of the project was written from
(issue 33), in the evaluation contract's format, split by phrasing family.

Each synthetic person talks to an assistant over about a year; their city, employer, team,
diet and partner change once or twice, and pets accumulate (a second pet does not replace the
first: those must coexist). Every statement a person makes is said in **one family**, a way
of saying a change, and the questions they are asked come from that family's question set:

- family 0, *plain*: the value said outright ("These days home is Ghent.");
- family 1, *an event that implies it*: a first day, unpacking, an anniversary, a reorg, a
  doctor's advice ("Badge photo done, first standup at Copperleaf tomorrow.");
- family 2, *news shared*: an offer accepted, a lease signed, a decision announced;
- family 3, *contrast with before*: the new value beside the old one ("Leaving Porto was hard,
  but Ghent already feels like home."), so the newest statement names the outdated value too.

Besides "current" (what is true now) and "coexist" (the pets), each person is asked of every
attribute that changed what was true **then**, at a time inside an earlier value's stretch
(category ``then``: the statement of that value is the evidence, the statements after it are
``later_turn_ids``), the time said in their family's way: 0 "in June 2025", 2 "five months
ago", 1 "back in June" (no year), 3 "twelve weeks ago"; the question worded in the past tense
of the family's ``ASK``.

Families 0 and 2 are dev (tune on them), 1 and 3 test (report them). The words of these
templates were written for this file, not taken from bench/temporal_data.py or the rules in
memvault/kg/updates.py; the small talk shares words with the questions on purpose.

    .venv/bin/python bench/currency_data.py --people 24 --seed 11 --out /tmp/currency
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from temporal_data import save, turn

FAMILIES = {0: "dev", 1: "test", 2: "dev", 3: "test"}
NAMES = ["Aiko", "Bram", "Carmen", "Dmitri", "Esme", "Femi", "Gael", "Hanna", "Ivo", "Jade",
         "Kofi", "Lea", "Milan", "Nour", "Olga", "Pavel", "Rhea", "Sol", "Timo", "Uma",
         "Vera", "Wim", "Xena", "Yusuf"]  # fmt: skip
POOLS = {
    "city": ["Ghent", "Porto", "Tallinn", "Seville", "Leipzig", "Bologna", "Malmo", "Cork",
             "Ljubljana", "Nantes", "Tartu", "Salzburg"],
    "employer": ["Copperleaf", "Nimbus Freight", "Ardent Bio", "Saltmarsh Games", "Kestrel Pay",
                 "Vantage Grid", "Oakline Media", "Brightwater Labs"],
    "team": ["billing", "onboarding", "infrastructure", "analytics", "partnerships", "design"],
    "diet": ["vegetarian", "vegan", "keto", "dairy-free", "pescatarian"],
    "partner": ["Lior", "Maren", "Tobi", "Zara", "Anouk", "Rafa", "Ines", "Joon"],
}  # fmt: skip
PETS = [("dog", "Waffle"), ("cat", "Pickle"), ("hamster", "Nugget"), ("dog", "Juno"),
        ("cat", "Sesame"), ("tortoise", "Bolt")]  # fmt: skip

# family → attribute → templates; {x}: the new value, {y}: the one before (family 3)
SAY: dict[int, dict[str, list[str]]] = {
    0: {
        "city": ["These days home is {x}.", "I'm living in {x} at the moment."],
        "employer": ["My employer is {x}.", "I'm employed by {x} these days."],
        "team": ["I belong to the {x} group at work.", "Work-wise I sit in {x} now."],
        "diet": ["My diet is {x}.", "I eat {x} these days."],
        "partner": ["{x} is my partner.", "I'm in a relationship with {x}."],
    },
    1: {
        "city": [
            "Spent the whole weekend unpacking in our new place in {x}.",
            "Got my residence registration sorted at the {x} town hall today.",
        ],
        "employer": [
            "Badge photo done, first standup at {x} tomorrow.",
            "Onboarding week at {x} is intense, so many new names.",
        ],
        "team": [
            "After the reorg I report into {x}; new manager, new rituals.",
            "First planning session with my new {x} colleagues went well.",
        ],
        "diet": [
            "My doctor's advice stuck: everything I cook is {x} now.",
            "Cleared the fridge this morning, only {x} food in there from now on.",
        ],
        "partner": [
            "{x} and I celebrated three months together last night.",
            "Met {x}'s parents this weekend, nerve-racking but lovely.",
        ],
    },
    2: {
        "city": [
            "News: the lease in {x} is signed and the keys are mine.",
            "Decision made, we're settling down in {x}.",
        ],
        "employer": [
            "I accepted the offer from {x}!",
            "Big news, I'm joining {x}; handed in my notice yesterday.",
        ],
        "team": [
            "It's official, I transferred to {x}.",
            "Announcement went out today: I'm part of {x} from now on.",
        ],
        "diet": [
            "I've committed to going {x}, starting this week.",
            "Made up my mind: {x} from here on.",
        ],
        "partner": [
            "{x} asked me out and I said yes, we're together!",
            "Made it official with {x} over dinner.",
        ],
    },
    3: {
        "city": [
            "Leaving {y} was hard, but {x} already feels like home.",
            "Compared to {y}, {x} is so much quieter at night.",
        ],
        "employer": [
            "No more {y} for me; {x} treats its people far better.",
            "{x} pays more than {y} ever did, and the commute is shorter.",
        ],
        "team": [
            "Swapped {y} for {x}; the standups are shorter at least.",
            "Not in {y} any more, {x} needed another pair of hands.",
        ],
        "diet": [
            "Dropped being {y}; {x} suits me much better.",
            "I was {y} for a while, but {x} is working better for my energy.",
        ],
        "partner": [
            "Things with {y} didn't work out; I'm seeing {x} now.",
            "{y} and I went separate ways, and {x} has been wonderful.",
        ],
    },
}
FIRST = {  # how a person's first value is said, in every family: a plain mention in passing
    "city": "Greetings from {x}, where I've lived for years.",
    "employer": "Long day at {x} again.",
    "team": "The {x} crew had a long retro today.",
    "diet": "Being {x}, I struggle with restaurant menus.",
    "partner": "{x} cooked dinner for me tonight.",
}
ASK: dict[int, dict[str, str]] = {
    0: {"city": "Where does {n} live?", "employer": "Who does {n} work for?",
        "team": "Which group is {n} in at work?", "diet": "What does {n} eat?",
        "partner": "Who is {n} with?"},
    1: {"city": "Which city is {n} in these days?", "employer": "What company is {n} at?",
        "team": "Who does {n} work with at the office?", "diet": "How does {n} eat now?",
        "partner": "Who is {n} dating?"},
    2: {"city": "Where is {n} based?", "employer": "Where is {n} employed?",
        "team": "What team does {n} belong to?", "diet": "What diet does {n} follow?",
        "partner": "Who is {n}'s partner?"},
    3: {"city": "What town does {n} call home?", "employer": "Which employer does {n} have?",
        "team": "Which team is {n} part of?", "diet": "What kind of food does {n} eat?",
        "partner": "Who is {n} seeing?"},
}  # fmt: skip
SMALL_TALK = [
    "The neighbours' place has a new balcony garden, looks lovely.",
    "Work had way too many meetings again.",
    "I finally found a good bakery close to home.",
    "My team at the climbing gym won the bouldering night.",
    "Partner yoga at the studio was harder than it looked.",
    "I want to cook something new this week, any ideas?",
    "Is it worth buying an e-bike for the city?",
    "The office plants are dying, nobody waters them.",
    "Read a great article about sleep and diet.",
    "Could you recommend a thriller for the weekend?",
    "My old flatmate visited and we talked for hours.",
    "What should I pack for a rainy city break?",
]
THEN: dict[int, dict[str, str]] = {  # a past question; {t}: the time, said in the family's way
    0: {"city": "Where did {n} live {t}?", "employer": "Who did {n} work for {t}?",
        "team": "Which group was {n} in at work {t}?", "diet": "What did {n} eat {t}?",
        "partner": "Who was {n} with {t}?"},
    1: {"city": "Which city was {n} in {t}?", "employer": "What company was {n} at {t}?",
        "team": "Who did {n} work with at the office {t}?", "diet": "How did {n} eat {t}?",
        "partner": "Who was {n} dating {t}?"},
    2: {"city": "Where was {n} based {t}?", "employer": "Where was {n} employed {t}?",
        "team": "What team did {n} belong to {t}?", "diet": "What diet did {n} follow {t}?",
        "partner": "Who was {n}'s partner {t}?"},
    3: {"city": "What town did {n} call home {t}?", "employer": "Which employer did {n} have {t}?",
        "team": "Which team was {n} part of {t}?", "diet": "What kind of food did {n} eat {t}?",
        "partner": "Who was {n} seeing {t}?"},
}  # fmt: skip
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]  # fmt: skip
COUNTS = ["three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
          "twenty"]  # fmt: skip
ASSISTANT = ["Noted!", "Good to know.", "Thanks for sharing.", "Sounds good.", "I see."]


@dataclass
class Person:
    name: str
    conv: str
    family: int
    values: dict[str, list[str]] = field(default_factory=dict)
    said: dict[str, list[str]] = field(default_factory=dict)  # attribute → turn ids
    said_at: dict[str, list[datetime]] = field(default_factory=dict)  # attribute → times
    pets: list[str] = field(default_factory=list)


def _plan(rng: random.Random, p: Person) -> list[tuple[int, str, str]]:
    sessions = rng.randint(16, 24)
    events: list[tuple[int, str, str]] = []
    for attr, pool in POOLS.items():
        values = rng.sample(pool, rng.randint(1, 2) + 1)
        p.values[attr] = values
        slots = sorted(rng.sample(range(sessions), len(values)))
        events += [(s, attr, v) for s, v in zip(slots, values, strict=True)]
    for s, (kind, pet) in zip(
        sorted(rng.sample(range(sessions), 2)), rng.sample(PETS, 2), strict=True
    ):
        events.append((s, "pet", f"{kind}:{pet}"))
    return sorted(events)


def _line(rng: random.Random, p: Person, attr: str, value: str) -> str:
    if attr == "pet":
        kind, name = value.split(":")
        if not p.pets:
            return f"There's a {kind} in my life now: {name}."
        return f"{name} the {kind} moved in with us as well, and the others tolerate it."
    before = p.values[attr][: p.values[attr].index(value)]
    if not before:
        return FIRST[attr].format(x=value)
    return rng.choice(SAY[p.family][attr]).format(x=value, y=before[-1])


def generate(people: int, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rng = random.Random(seed)
    turns: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    for i in range(people):
        p = Person(NAMES[i % len(NAMES)], f"held-{i:02d}", family=i % 4)
        events = _plan(rng, p)
        when = datetime(2025, 2, 3, 18, tzinfo=UTC) + timedelta(days=rng.randint(0, 20))
        by_session: dict[int, list[tuple[str, str]]] = {}
        for s, attr, value in events:
            by_session.setdefault(s, []).append((attr, value))
        counter = 0
        for s in range(max(by_session) + 1):
            when += timedelta(days=rng.randint(6, 18), minutes=rng.randint(0, 500))
            lines: list[tuple[str, str | None]] = []
            for attr, value in by_session.get(s, []):
                lines.append((_line(rng, p, attr, value), attr))
                if attr == "pet":
                    p.pets.append("")  # placeholder, replaced by the turn id below
            for _ in range(rng.randint(2, 4)):
                lines.insert(rng.randint(0, len(lines)), (rng.choice(SMALL_TALK), None))
            for text, attr in lines:
                for who, said in ((p.name, text), ("Assistant", rng.choice(ASSISTANT))):
                    counter += 1
                    tid = f"{p.conv}:t{counter:04d}"
                    turns.append(turn(p.conv, f"{p.conv}:s{s:02d}", when, tid, who, said))
                    if who == p.name and attr == "pet":
                        p.pets[p.pets.index("")] = tid
                    elif who == p.name and attr:
                        p.said.setdefault(attr, []).append(tid)
                        p.said_at.setdefault(attr, []).append(when)
        asked = when + timedelta(days=rng.randint(2, 15))
        questions += _questions(p, asked.isoformat())
        # a generator of its own: the turns and questions above stay those of earlier runs
        questions += _then(random.Random(f"{seed}:{p.conv}"), p, asked)
    return turns, questions


def _questions(p: Person, asked_at: str) -> list[dict[str, Any]]:
    base = {"conv_id": p.conv, "question_date": asked_at, "family": p.family,
            "split": FAMILIES[p.family]}  # fmt: skip
    out = [
        {
            **base,
            "question_id": f"{p.conv}:{attr}",
            "question": ASK[p.family][attr].format(n=p.name),
            "category_name": "current",
            "attribute": attr,
            "evidence_turn_ids": [p.said[attr][-1]],
            "outdated_turn_ids": p.said[attr][:-1],
        }
        for attr in POOLS
    ]
    out.append(
        {
            **base,
            "question_id": f"{p.conv}:pets",
            "question": f"What animals does {p.name} have at home?",
            "category_name": "coexist",
            "attribute": "pet",
            "evidence_turn_ids": list(p.pets),
        }
    )
    return out


def _when_said(
    rng: random.Random, family: int, start: datetime, end: datetime, asked: datetime
) -> str | None:
    """A time inside ``start``..``end`` (a value's stretch) as the family says it, with a
    margin either side; None when the stretch is too short for it."""
    margin = timedelta(days=10)
    if family in (0, 1):  # a whole month: "in June 2025" / "back in June"
        months = []
        for n in range(1, 12 if family == 1 else 24):
            y, m = divmod(asked.year * 12 + asked.month - 1 - n, 12)
            first = datetime(y, m + 1, 1, tzinfo=UTC)
            last = datetime(y + (m == 11), (m + 1) % 12 + 1, 1, tzinfo=UTC)
            if start + margin <= first and last + margin <= end:
                months.append((MONTHS[m], y))
        if not months:
            return None
        month, year = rng.choice(months)
        return f"in {month} {year}" if family == 0 else f"back in {month}"
    unit = 30 if family == 2 else 7  # "five months ago" / "twelve weeks ago"
    counts = [
        (i + 3, word) for i, word in enumerate(COUNTS)
        if start + margin <= asked - timedelta(days=unit * (i + 3)) <= end - margin
    ]  # fmt: skip
    if not counts:
        return None
    _, word = rng.choice(counts)
    return f"{word} {'months' if family == 2 else 'weeks'} ago"


def _then(rng: random.Random, p: Person, asked: datetime) -> list[dict[str, Any]]:
    """Per attribute that changed, one question about what was true at a time inside an
    earlier value's stretch (none when no stretch is long enough to name a time in)."""
    out = []
    for attr in POOLS:
        ids, times = p.said[attr], p.said_at[attr]
        stretches = list(range(len(ids) - 1))
        rng.shuffle(stretches)
        for i in stretches:
            said = _when_said(rng, p.family, times[i], times[i + 1], asked)
            if said is None:
                continue
            out.append({
                "conv_id": p.conv, "question_date": asked.isoformat(), "family": p.family,
                "split": FAMILIES[p.family], "question_id": f"{p.conv}:{attr}:then",
                "question": THEN[p.family][attr].format(n=p.name, t=said),
                "category_name": "then", "attribute": attr,
                "evidence_turn_ids": [ids[i]], "later_turn_ids": ids[i + 1:],
            })  # fmt: skip
            break
    return out


def write(out: Path, people: int, seed: int) -> tuple[Path, Path]:
    return save(out, *generate(people, seed))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=24)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    paths = write(args.out, args.people, args.seed)
    print(json.dumps({"turns": str(paths[0]), "questions": str(paths[1])}))
