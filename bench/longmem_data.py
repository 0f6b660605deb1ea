"""A generated long-memory benchmark in the evaluation contract's format (seeded), in the shape
of LongMemEval: one user talks to an assistant over many long sessions across a year; the
questions come after the last session, in the user's voice.

Per user, ``--sessions`` (40) sessions of 8-14 turns; user turns of one to four sentences,
assistant turns long (600-1,500 characters of advice that shares words with the questions).
Planted among them, each in its own session, in varied phrasings:

- ``single-session``: one detail said once ("I picked up a cast-iron skillet at Harlow's for
  the camping trip"); asked: "Where did I get my cast-iron skillet?";
- ``multi-session``: one activity mentioned in three to five sessions; asked how many times,
  every mention is evidence;
- ``temporal-reasoning``: two dated events in different sessions; asked which came first,
  both are evidence;
- ``knowledge-update``: a value that changes two or three times (a personal best, a gym, a
  commute, a manager); asked the current one, the newest statement is evidence;
- ``preference``: a taste stated in passing ("I've been hooked on Scandinavian crime novels");
  asked for a recommendation that does not name it.

    .venv/bin/python bench/longmem_data.py --users 6 --seed 11 --out /tmp/longmem
"""

from __future__ import annotations

import argparse
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from temporal_data import save, turn

ITEMS = [
    ("cast-iron skillet", "Harlow's", "the camping trip"),
    ("standing desk", "Office Depot", "my home office"),
    ("rain jacket", "the Patagonia outlet", "the hiking weekend"),
    ("espresso grinder", "Bean & Burr", "my morning routine"),
    ("road bike helmet", "Cycle Hub", "the charity ride"),
    ("watercolour set", "Artisan Supply", "my sister's birthday"),
    ("noise-cancelling headphones", "an airport kiosk", "the long flights"),
    ("sourdough starter kit", "the farmers market", "weekend baking"),
]
ACTIVITIES = ["pottery", "salsa", "spin", "yoga", "improv", "climbing", "swim", "piano"]
EVENTS = [
    "my cousin's wedding in Porto",
    "the product launch at work",
    "my dentist appointment",
    "the half marathon",
    "moving my parents into their new flat",
    "the team offsite in Ghent",
    "my first solo camping night",
    "the jazz festival",
]
UPDATES = {
    "5k personal best": ["27:40", "26:15", "25:02", "24:10"],
    "gym": ["Iron Works", "FitHub on Elm Street", "the community centre gym", "Peak Climbing"],
    "commute": ["the 7:40 train", "cycling along the canal", "the 42 bus", "carpooling with Dev"],
    "manager": ["Priya", "Marcus", "Elena", "Tomasz"],
}
UPDATE_SAY = {
    "5k personal best": [
        "Ran a 5k this morning in {v}, a new personal best!",
        "My 5k PB is now {v}, I'm thrilled.",
        "Shaved my 5k time down to {v} at parkrun.",
    ],
    "gym": [
        "I signed up at {v} this week.",
        "Switched my membership over to {v}.",
        "These days I train at {v}.",
    ],
    "commute": [
        "My commute now is {v}, it takes about 35 minutes.",
        "I've started getting to work by {v}.",
        "New routine: {v} every morning.",
    ],
    "manager": [
        "My manager is {v}, we have weekly one-on-ones.",
        "Reorg news: I now report to {v}.",
        "{v} is my new boss as of Monday.",
    ],
}
UPDATE_Q = {
    "5k personal best": "What is my current 5k personal best?",
    "gym": "Which gym do I go to these days?",
    "commute": "How do I get to work now?",
    "manager": "Who is my manager right now?",
}
PREFERENCES = [
    (
        "I've been hooked on Scandinavian crime novels lately.",
        "Any ideas for a book to bring on my flight?",
    ),
    (
        "Honestly I only drink oat milk flat whites now.",
        "What should I order at the new café downtown?",
    ),
    (
        "I'm really into bouldering gyms with good stretching areas.",
        "Where could I go to exercise while I'm travelling next month?",
    ),
    (
        "Spicy Sichuan food is my absolute favourite.",
        "Can you suggest a place for dinner on Friday?",
    ),
    (
        "Podcasts about urban history are my jam on long drives.",
        "What could I listen to on the road trip?",
    ),
    ("I prefer board games that take under an hour.", "What should we play at game night?"),
]
SMALL = [
    "Can you help me draft an email to my landlord about the heating?",
    "What's a good way to organise my week when it gets busy?",
    "I need a packing list for a three-day trip.",
    "Could you explain how compound interest works?",
    "How long should I rest between workouts?",
    "What are some healthy lunch ideas I can prep on Sunday?",
    "I keep forgetting to water my plants, any tricks?",
    "Can you summarise the pros and cons of leasing a car?",
    "How do I politely decline a meeting invitation?",
    "What's the best way to learn some basic Portuguese?",
    "Tips for sleeping better after a late class?",
    "How do I keep a sourdough starter alive while travelling?",
]
ADVICE = [
    "Here are a few ideas to consider, depending on how much time you have and what matters most",
    "A good starting point is to write down what you need and then compare a few options",
    "Many people find it helpful to build a simple routine around classes, workouts and rest days",
    "When planning a trip or an event, it often helps to book early and keep a short checklist",
    "If you are comparing gyms, stores or teams, look at location, price and schedule",
    "For anything that happens every week, a calendar reminder and a small habit help a lot",
    "It can also be worth asking friends or colleagues what worked for them in a similar situation",
    "Finally, remember that it is fine to adjust the plan as you go and learn what suits you best",
]


def _advice(rng: random.Random) -> str:
    parts = rng.sample(ADVICE, rng.randint(4, 8))
    return (
        ". ".join(parts)
        + ". "
        + " ".join(f"Step {i + 1}: {rng.choice(ADVICE).lower()}." for i in range(rng.randint(2, 5)))
    )


def generate(
    users: int, sessions: int, seed: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rng = random.Random(seed)
    turns: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    for u in range(users):
        conv = f"user-{u:02d}"
        start = datetime(2024, 2, 1, 18, tzinfo=UTC) + timedelta(days=rng.randint(0, 40))
        times = sorted(start + timedelta(days=rng.randint(0, 330), hours=rng.randint(0, 5))
                       for _ in range(sessions))  # fmt: skip
        plan: dict[int, list[tuple[str, str, Any]]] = {}  # session → (category, text, key)

        def put(s: int, category: str, text: str, key: Any, plan: dict[int, Any] = plan) -> None:
            plan.setdefault(s, []).append((category, text, key))

        free = list(range(sessions))
        rng.shuffle(free)
        for item, store, why in rng.sample(ITEMS, 3):
            verb = rng.choice(["picked up", "bought", "finally got"])
            put(free.pop(), "single-session", f"I {verb} a {item} at {store} for {why}.", item)
        for activity in rng.sample(ACTIVITIES, 2):
            for s in sorted(rng.sample(range(sessions), rng.randint(3, 5))):
                text = rng.choice([
                    f"Just got back from my {activity} class, feeling great.",
                    f"Tonight's {activity} session was tough but fun.",
                    f"I went to {activity} again this evening.",
                ])  # fmt: skip
                put(s, "multi-session", text, activity)
        for a, b in [rng.sample(EVENTS, 2), rng.sample(EVENTS, 2)]:
            s1, s2 = sorted(rng.sample(range(sessions), 2))
            put(s1, "temporal-reasoning", f"Today was {a}, what a day.", (a, b, "first"))
            put(s2, "temporal-reasoning", f"Finally done with {b}!", (a, b, "second"))
        for attr in rng.sample(sorted(UPDATES), 2):
            values = UPDATES[attr][: rng.randint(2, 3)]
            slots = sorted(rng.sample(range(sessions), len(values)))
            for s, v in zip(slots, values, strict=True):
                put(s, "knowledge-update", rng.choice(UPDATE_SAY[attr]).format(v=v), attr)
        said, asked = rng.choice(PREFERENCES)
        put(rng.randrange(sessions), "preference", said, asked)

        found: dict[tuple[str, Any], list[str]] = {}
        counter = 0
        for s in range(sessions):
            lines = [(text, (cat, key)) for cat, text, key in plan.get(s, [])]
            for _ in range(rng.randint(4, 7)):
                lines.insert(rng.randint(0, len(lines)), (rng.choice(SMALL), None))
            for text, tag in lines:
                for speaker, said_text in (("user", text), ("assistant", _advice(rng))):
                    counter += 1
                    turn_id = f"{conv}:t{counter:05d}"
                    turns.append(
                        turn(conv, f"{conv}:s{s:03d}", times[s], turn_id, speaker, said_text)
                    )
                    if speaker == "user" and tag is not None:
                        cat, key = tag
                        key = key[:2] if cat == "temporal-reasoning" else key
                        found.setdefault((cat, key), []).append(turn_id)
        asked_at = (times[-1] + timedelta(days=rng.randint(2, 20))).isoformat()
        base = {"conv_id": conv, "question_date": asked_at}
        for n, ((cat, key), ids) in enumerate(found.items(), start=1):
            if cat == "single-session":
                q, gold = f"Where did I get my {key}?", ids
            elif cat == "multi-session":
                q, gold = f"How many times did I go to {key} in total?", ids
            elif cat == "temporal-reasoning":
                a, b = key
                q, gold = f"Which happened first, {a} or {b}?", ids
            elif cat == "knowledge-update":
                q, gold = UPDATE_Q[key], ids[-1:]
            else:
                q, gold = key, ids
            questions.append({**base, "question_id": f"{conv}:q{n}", "question": q,
                              "category_name": cat, "evidence_turn_ids": gold})  # fmt: skip
    return turns, questions


def write(out: Path, users: int, seed: int, sessions: int = 40) -> tuple[Path, Path]:
    return save(out, *generate(users, sessions, seed))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=6)
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    paths = write(args.out, args.users, args.seed, args.sessions)
    print(json.dumps({"turns": str(paths[0]), "questions": str(paths[1])}))
