"""Do vague catch-all notes become sticky under access feedback (issue 33 item 6)? The data:
one person's notes (a specific note per topic, with its detail), a few catch-all notes that
mention everything and say nothing, and a stream of questions, 30% of them vague ("anything
going on I should know about?"). Written before the mechanism it judges.

Topics are split in two halves, dev (even index) and test (odd); every topic is asked in two
families of wording (direct, oblique), and vague questions come in two families too (dev:
"what's up lately"; test: "anything to remember"). Tune on dev, report test.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

# topic: (the note, [direct question, oblique question])
TOPICS: list[tuple[str, list[str]]] = [
    ("Dentist appointment moved to March 3rd at 10am with Dr Okafor.",
     ["When is my dentist appointment?", "What time do I see the person about my teeth?"]),
    ("The car's MOT is due on 14 June; the garage on Elm Road does it.",
     ["When is the car's MOT due?", "Which day does the vehicle need its yearly check?"]),
    ("My sister Ruth's birthday is on 9 August; she wants a record player.",
     ["When is Ruth's birthday?", "What gift was my sister hoping for?"]),
    ("The wifi password at the cabin is larch-47-blue.",
     ["What's the cabin wifi password?", "How do I get online up at the cabin?"]),
    ("Landlord said the rent goes up to 1,150 a month from October.",
     ["How much will the rent be from October?", "What did the landlord say about paying more?"]),
    ("Running plan: 5k on Tuesdays and Thursdays, long run of 14k on Sundays.",
     ["What's my running plan?", "How far do I go on the weekend jog?"]),
    ("The kids' school closes for the term on 19 December at noon.",
     ["When does the school term end?", "What day do the children finish before the holidays?"]),
    ("Passport expires in May 2027; renewal takes about six weeks.",
     ["When does my passport expire?", "How long until my travel document runs out?"]),
    ("Tomato plants need feeding every ten days with the seaweed mix.",
     ["How often do I feed the tomatoes?", "What does the vegetable patch need and when?"]),
    ("Book club is reading 'The Overstory' for the meeting on the 21st.",
     ["What is the book club reading?", "Which novel do I need to finish for the group?"]),
    ("The boiler service engineer is called Tomasz; his number is 07700 900123.",
     ["Who services the boiler?", "Whom do I phone when the heating breaks?"]),
    ("Allergic to penicillin: a rash the last time, keep it on file.",
     ["Am I allergic to any medicine?", "Which antibiotic should the doctor avoid for me?"]),
    ("The bike lock code is 3-9-1-6.",
     ["What's the bike lock code?", "How do I open the lock on my bicycle?"]),
    ("Quarterly tax payment of 2,400 is due on 31 January.",
     ["When is the tax payment due?", "How much do I owe the revenue office and by when?"]),
    ("Mum's flight lands at Gatwick on Friday at 16:40, BA 2731.",
     ["When does Mum's flight land?", "What time should I be at the airport for my mother?"]),
    ("Gym membership renews on 2 April at 39 a month unless cancelled.",
     ["When does the gym membership renew?", "How much is the fitness club costing me?"]),
]  # fmt: skip

CATCH_ALL = [
    "Catch-up note: a lot going on lately, work and family and a few things to sort out.",
    "Reminder to self: keep on top of things, appointments, bills, people, the usual stuff.",
    "Random notes from the week: busy, some plans, some errands, nothing major to report.",
    "General update: life is busy, several bits and pieces to remember at some point.",
]
VAGUE = {
    "dev": ["What's up with me lately?", "What's been going on recently?",
            "Anything happening this week?", "How are things going?"],
    "test": ["Is there anything I should remember?", "What should I keep in mind?",
             "Anything important I might forget?", "What do I need to know right now?"],
}  # fmt: skip
FILLER = [
    "Had pasta for dinner, the good kind from the market.",
    "Watched half a documentary about whales before falling asleep.",
    "The neighbour's cat sat on the car roof again.",
    "Rainy all day, stayed in and tidied the cupboard.",
    "Tried the new coffee place on the corner, too bitter.",
    "Long walk by the river, saw herons.",
]


@dataclass(frozen=True)
class Question:
    text: str
    split: str
    target: int | None  # the topic it asks about; None for a vague question


def notes(seed: int) -> list[dict[str, object]]:
    """Every note with its time: topics, catch-alls and filler spread over 90 days."""
    rng = random.Random(seed)
    start = datetime(2026, 1, 5, 9, tzinfo=UTC)
    texts = [t for t, _ in TOPICS] + CATCH_ALL + FILLER
    out = []
    for i, text in enumerate(texts):
        when = start + timedelta(days=rng.uniform(0, 90))
        out.append({"id": f"n{i:03d}", "content": text, "occurred_at": when.isoformat()})
    return out


def questions(n: int, split: str, vague_share: float, seed: int) -> list[Question]:
    """``n`` questions of one split: ``vague_share`` vague, the rest about its topics, in
    either family of wording."""
    rng = random.Random(seed)
    mine = [i for i in range(len(TOPICS)) if (i % 2 == 0) == (split == "dev")]
    out = []
    for _ in range(n):
        if rng.random() < vague_share:
            out.append(Question(rng.choice(VAGUE[split]), split, None))
        else:
            topic = rng.choice(mine)
            out.append(Question(rng.choice(TOPICS[topic][1]), split, topic))
    return out
