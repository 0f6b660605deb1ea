"""Things done on given days, asked in order, by the time between them or by how long ago one
was: two categories of the long-chat sets (bench/longchat_data.py, ``orders=True``). A
person mentions doing one thing in one session ("I ran my first half marathon today!") and
another weeks later in another; months on they ask "Which did I do first, my first half
marathon or painting the nursery?" or "How many days passed between …?". Both statements are
evidence: an answer needs the date of each. Before each is done it is talked about ("Still
planning my first half marathon, any advice?") in another session, so the words of the
question meet turns that are not the event. LongMemEval's temporal reasoning asks such
questions; these cases are the project's own, written before any mechanism was judged by
them.

Four families (a family = one way of saying what was done and one way of asking), split like
the other categories (0 and 2 dev, 1 and 3 test); families 0 and 1 ask by the words the
person used ("my first half marathon"), 2 and 3 in other words ("the race"), so each half
has one of each. Each person says three of the eight things, in one family's wording, in
sessions on their topics, and asks about the first two (``order``) and how long ago the
third was done (``ago``: "How many days ago did I paint the nursery?", "How long has it been
since I redecorated the baby's room?"; its one statement is the evidence).
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
# the time since one thing: what was done as a question says it, by the person's words
# (families 0, 1) or in other words (2, 3; the last in the past tense)
AGO_FORMS = {
    "ran my first half marathon": ("run my first half marathon", "do the race", "did the race"),
    "baked a loaf from my own sourdough starter": (
        "bake a loaf from my own sourdough starter", "make the homemade bread",
        "made the homemade bread"),
    "painted the nursery": ("paint the nursery", "redecorate the baby's room",
                            "redecorated the baby's room"),
    "planted the apple tree": ("plant the apple tree", "put the fruit tree in",
                               "put the fruit tree in"),
    "opened the pension account": ("open the pension account", "start my retirement savings",
                                   "started my retirement savings"),
    "played my first gig with the band": ("play my first gig with the band",
                                          "do our first show on stage",
                                          "did our first show on stage"),
    "gave the budget presentation to the board": (
        "give the budget presentation to the board", "present the numbers to the directors",
        "presented the numbers to the directors"),
    "renewed my passport": ("renew my passport", "get my new travel document",
                            "got my new travel document"),
}  # fmt: skip
ASK_AGO = [
    "How many days ago did I {base}?",
    "How long ago did I {base}?",
    "How many weeks ago did I {other}?",
    "How long has it been since I {past}?",
]


def said(family: int, done: str) -> str:
    return SAY[family].format(done=done)


def asked(family: int, a: str, b: str) -> str:
    return ASK[family].format(a=a, b=b)


def asked_ago(family: int, done: str) -> str:
    base, other, past = AGO_FORMS[done]
    return ASK_AGO[family].format(base=base, other=other, past=past)


def plant(
    rng: random.Random,
    topics: list[str],
    put: Callable[[int, str, Any], None],
    asks: list[dict[str, Any]],
) -> None:
    """One person's three things, each in a session on its topic (``put(session, text,
    tag)``), in different sessions, each talked about before in an earlier session: one
    question about the first two (category ``order``) and one asking how long ago the third
    was done (category ``ago``), appended to ``asks``."""
    family = rng.randrange(4)
    picked = rng.sample(EVENTS, 3)
    n = len(topics)
    used: set[int] = set()
    for i, (topic, done, _, _, plan) in enumerate(picked):
        on = [s for s in range(2, n) if topics[s] == topic and s not in used]
        s = rng.choice(on or [s for s in range(2, n) if s not in used])
        used.add(s)
        put(s, said(family, done), ("order", family, 0) if i < 2 else ("ago", family, 0))
        put(rng.randrange(0, s), BEFORE.format(plan=plan), [plan])
    name = 3 if family in OTHER_WORDS else 2
    a, b = picked[0][name], picked[1][name]
    asks.append({"category": "order", "family": family, "tag": ("order", family, 0),
                 "question": asked(family, a, b)})  # fmt: skip
    asks.append({"category": "ago", "family": family, "tag": ("ago", family, 0),
                 "question": asked_ago(family, picked[2][1])})  # fmt: skip
