"""Two things done on two days, asked in order or by the time between them: a category of
the long-chat sets (bench/longchat_data.py, ``orders=True``). A person mentions doing one
thing in one session ("I ran my first half marathon today!") and another weeks later in
another; months on they ask "Which did I do first, my first half marathon or painting the
nursery?" or "How many days passed between …?". Both statements are evidence: an answer
needs the date of each. Before each is done it is talked about ("Still planning my first half
marathon, any advice?") in another session, so the words of the question meet turns that
are not the event. LongMemEval's temporal reasoning asks such questions; these cases are the
project's own, written before any mechanism was judged by them.

Four families (a family = one way of saying what was done and one way of asking), split like
the other categories (0 and 2 dev, 1 and 3 test); families 0 and 1 ask by the words the
person used ("my first half marathon"), 2 and 3 in other words ("the race"), so each half
has one of each. Each person says two of the eight things, in one family's wording, in
sessions on their topics, and asks about the pair.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

EVENTS = [  # (topic, what was done, what the question calls it, the same in other words,
    # what is said before it)
    ("running", "ran my first half marathon", "my first half marathon", "the race",
     "my first half marathon"),
    ("cooking", "baked a loaf from my own sourdough starter", "the first sourdough loaf",
     "the homemade bread", "baking with my sourdough starter"),
    ("home", "painted the nursery", "painting the nursery", "redecorating the baby's room",
     "the nursery paint job"),
    ("garden", "planted the apple tree", "planting the apple tree", "putting the fruit tree in",
     "where the apple tree goes"),
    ("money", "opened the pension account", "opening the pension account",
     "starting my retirement savings", "the pension account"),
    ("music", "played my first gig with the band", "the first gig with the band",
     "our first show on stage", "the band's first gig"),
    ("work", "gave the budget presentation to the board", "the board presentation",
     "presenting the numbers to the directors", "the budget presentation for the board"),
    ("travel", "renewed my passport", "renewing my passport", "getting my new travel document",
     "my passport renewal"),
]  # fmt: skip
SAY = [  # by family: how what was done is said
    "I {done} today!",
    "Just {done}, what a day.",
    "Big news: I {done} this morning.",
    "Quick update, I finally {done}.",
]
ASK = [  # by family: how the pair is asked about, by its names (0, 1) or in other words (2, 3)
    "Which did I do first, {a} or {b}?",
    "How many days passed between {a} and {b}?",
    "What happened first: {a} or {b}?",
    "How long was it from {a} until {b}?",
]
OTHER_WORDS = {2, 3}
BEFORE = "Still planning {plan}, any advice?"


def said(family: int, done: str) -> str:
    return SAY[family].format(done=done)


def asked(family: int, a: str, b: str) -> str:
    return ASK[family].format(a=a, b=b)


def plant(
    rng: random.Random,
    topics: list[str],
    put: Callable[[int, str, Any], None],
    asks: list[dict[str, Any]],
) -> None:
    """One person's two things, each in a session on its topic (``put(session, text, tag)``)
    at least two sessions apart, each talked about before in an earlier session, and one
    question about the pair (appended to ``asks``)."""
    family = rng.randrange(4)
    tag = ("order", family, 0)
    picked = rng.sample(EVENTS, 2)
    n = len(topics)
    used: set[int] = set()
    for topic, done, _, _, plan in picked:
        on = [s for s in range(2, n) if topics[s] == topic and s not in used]
        s = rng.choice(on or [s for s in range(2, n) if s not in used])
        used.add(s)
        put(s, said(family, done), tag)
        put(rng.randrange(0, s), BEFORE.format(plan=plan), [plan])
    name = 3 if family in OTHER_WORDS else 2
    a, b = picked[0][name], picked[1][name]
    asks.append({"category": "order", "family": family, "tag": tag,
                 "question": asked(family, a, b)})  # fmt: skip
