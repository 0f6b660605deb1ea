"""Tastes said in passing, asked for as a request that never names them: a category of the
long-chat sets (bench/longchat_data.py, ``preferences=True``). A person tells the assistant
what they like ("Spicy Sichuan food is my absolute favourite.") in one session among many on
the same topic; months later they ask for a suggestion ("Can you suggest a place for dinner on
Friday?") that shares no word with it. The taste is the evidence: an assistant that answers
without it answers someone else. LongMemEval has such a category; these cases are the
project's own, written before any mechanism was built for them.

Four families (a family = one way of saying a taste and one way of asking), split like the
other categories (0 and 2 dev, 1 and 3 test). Every family is said of every taste, so a
mechanism tuned on the dev families meets the test families' wording for the first time, on
the same tastes. The tastes share no content word with the requests. Each person says three
tastes (on three topics, in one family's wording) and asks for one: the other two are there
as a person's other tastes are, and only the one asked for is evidence.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

TASTES = [  # (topic, taste, what is asked for)
    ("cooking", "spicy Sichuan food", "a place for dinner on Friday"),
    ("travel", "quiet cabins with no wifi", "a long weekend away in October"),
    ("music", "old jazz piano records", "something to put on while I study"),
    ("running", "muddy trail runs through the woods", "a route for this Sunday morning"),
    ("home", "mid-century furniture", "a new chair for the living room"),
    ("garden", "native wildflowers", "something to plant in the empty bed by the fence"),
    ("money", "boring low-cost index funds", "a way to invest my bonus"),
    ("work", "deep-work mornings with no meetings", "a better way to plan my week"),
]
SAY = [  # by family: how the taste is said
    "I'm really into {taste} these days.",
    "Honestly, nothing beats {taste} for me.",
    "{Taste} has become my absolute favourite.",
    "Lately it's {taste} all the way, I can't get enough.",
]
ASK = [  # by family: how the request is put
    "Can you suggest {want}?",
    "Any ideas for {want}?",
    "What would you recommend for {want}?",
    "I'm stuck on {want}, where should I start?",
]


def said(family: int, taste: str) -> str:
    return SAY[family].format(taste=taste, Taste=taste[0].upper() + taste[1:])


def asked(family: int, want: str) -> str:
    return ASK[family].format(want=want)


def plant(
    rng: random.Random,
    topics: list[str],
    put: Callable[[int, str, Any], None],
    asks: list[dict[str, Any]],
) -> None:
    """One person's three tastes, each in a session on its topic (``put(session, text,
    tag)``), in one family's wording; the first is asked for (appended to ``asks``)."""
    family = rng.randrange(4)
    for i, (topic, taste, want) in enumerate(rng.sample(TASTES, 3)):
        tag = ("preference", family, i)
        sessions = [s for s in range(len(topics)) if topics[s] == topic] or [0]
        put(rng.choice(sessions), said(family, taste), tag)
        if i == 0:
            asks.append({"category": "preference", "family": family, "tag": tag,
                         "question": asked(family, want)})  # fmt: skip
