"""A generated long-chat set for recall, in the shape real assistant histories have and split
by family into dev and test (seeded). It is the data recall is tuned on for long chats; its
test half is what docs/benchmarks.md reports. LongMemEval is never used for tuning.

The shape (issue "Recall on real conversations"): one user and an assistant, about 30 sessions
over eight months, often two or three sessions on one day; user turns short (one or two
sentences), assistant replies long (1,200-2,400 characters) and *on the session's topic*,
echoing the user's own words, so that a frequent word of the question ("favorite", "tried",
"recommend") is in many long replies. The evidence is almost always a short user turn.

Seven categories, each said in four families (a family = one way of saying the planted
statement and of asking about it); families 0 and 2 are dev, 1 and 3 test:

- ``rare-name``: a person or brand named once ("Dr. Okonkwo said to ice it twice a day");
  asked by the name, among many replies on the same topic;
- ``spelling``: said with British spelling, asked with American ("favourite colour" /
  "favorite color");
- ``relative-time``: the same kind of outing three or four times months apart; asked for the
  one "about two months ago" / "last week" / "in March"; the one then is evidence;
- ``counting``: an activity done in three to five sessions, while other sessions talk about it
  at length; asked how many times, every time is evidence;
- ``quote``: six to eight consecutive words from the middle of a long reply; asked to find it;
- ``assistant-said``: what the assistant recommended; asked "what did you recommend ...";
- ``knowledge-update``: a value said two or three times; asked the current one, the newest
  statement is evidence.

    .venv/bin/python bench/longchat_data.py --users 8 --seed 5 --out /tmp/longchat
"""

from __future__ import annotations

import argparse
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import order_data
import preference_data
from asked_data import ASKED
from longchat_families import (
    ACTIVITIES,
    AGO,
    COUNT_ASK,
    COUNT_SAY,
    FRAMES,
    OUTING_ASK,
    OUTING_SAY,
    OUTINGS,
    QUOTE_ASK,
    RARE,
    RECOMMEND,
    SPELLING,
    SPLIT,
    TOPICS,
    UPDATES,
    USER_ASKS,
)
from sharegpt import conversations
from temporal_data import save, turn


def _reply(rng: random.Random, topic: str, echo: list[str]) -> str:
    words = TOPICS[topic]
    out: list[str] = []
    while sum(map(len, out)) < rng.randint(1200, 2400):
        a, b = rng.sample(words, 2)
        if echo and rng.random() < 0.3:
            a = rng.choice(echo)
        out.append(rng.choice(FRAMES).format(a=a, b=b) + ".")
    return " ".join(out)


def _ask(rng: random.Random, topic: str) -> tuple[str, list[str]]:
    a, b = rng.sample(TOPICS[topic], 2)
    return rng.choice(USER_ASKS).format(a=a, b=b), [a, b]


def _quote(rng: random.Random, replies: list[tuple[str, str]]) -> tuple[str, str]:
    """Six to eight consecutive words from the middle of a long reply, found verbatim in no
    other turn of the conversation (replies share their sentence frames)."""
    others = " ".join(text.lower() for _, text in replies)
    for _ in range(200):
        turn_id, text = rng.choice([r for r in replies if len(r[1]) > 1200])
        words = text.split()
        start = rng.randrange(len(words) // 3, 2 * len(words) // 3)
        quoted = " ".join(words[start : start + rng.randint(6, 8)]).strip(".,")
        if others.count(quoted.lower()) == 1:
            return turn_id, quoted
    raise RuntimeError("no unique quote found")


Row = tuple[str, str, Any]  # speaker, text, evidence tag


def _generated(rng: random.Random, topic: str, planted: list[tuple[str, Any]]) -> list[Row]:
    """A generated session: two to four asks on its topic and the planted lines, each
    answered by a long reply on the topic that echoes the ask's words."""
    lines: list[tuple[str, Any]] = []
    for _ in range(rng.randint(2, 4)):
        lines.append(_ask(rng, topic))
    for text, tag in planted:
        lines.insert(rng.randint(0, len(lines)), (text, tag))
    rows: list[Row] = []
    for text, tag in lines:
        echo = tag if isinstance(tag, list) else [w for w in TOPICS[topic] if w in text]
        reply = _reply(rng, topic, echo)
        reply_tag = None
        if isinstance(tag, tuple) and tag[0] == "recommend":
            _, said, reply_tag = tag
            reply = f"{said} {reply}"
            tag = None
        rows += [("user", text, tag), ("assistant", reply, reply_tag)]
    return rows


def _real(
    rng: random.Random, haystack: list[list[tuple[str, str]]], planted: list[tuple[str, Any]]
) -> list[Row]:
    """A real session: the next conversation of the haystack, word for word, with each
    planted line put before one of its user turns (or at its end) and answered by the
    assistant turn of another real conversation."""
    real = haystack.pop()
    starts = [i for i, (who, _) in enumerate(real) if who == "user"] + [len(real)]
    at: dict[int, list[Row]] = {}
    for text, tag in planted:
        reply, reply_tag = _other_reply(rng, haystack), None
        if isinstance(tag, tuple) and tag[0] == "recommend":
            _, said, reply_tag = tag
            reply, tag = f"{said} {reply}", None
        at.setdefault(rng.choice(starts), []).extend(
            [("user", text, tag), ("assistant", reply, reply_tag)]
        )
    rows: list[Row] = []
    for i in range(len(real) + 1):
        rows += at.get(i, [])
        if i < len(real):
            rows.append((*real[i], None))
    return rows


def _other_reply(rng: random.Random, haystack: list[list[tuple[str, str]]]) -> str:
    while True:
        said = [t for who, t in rng.choice(haystack) if who == "assistant"]
        if said:
            return rng.choice(said)


def generate(
    users: int,
    seed: int,
    haystack: list[list[tuple[str, str]]] | None = None,
    *,
    asked_facts: bool = False,
    preferences: bool = False,
    orders: bool = False,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``haystack``: real conversations (``sharegpt.conversations``), one a session, in
    place of the generated asks and replies; the planted statements and questions are the
    same families either way. ``asked_facts``: an eighth category, facts said inside a request
    (bench/asked_data.py); off, the set is the same as before it existed. ``preferences``:
    a ninth, tastes said in passing and asked for as requests (bench/preference_data.py),
    likewise; ``orders``: two things done on two days, asked which came first or how long
    between them (bench/order_data.py), likewise."""
    rng = random.Random(seed)
    if haystack is not None:
        haystack = random.Random(seed).sample(haystack, len(haystack))  # each used once
    turns: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    for u in range(users):
        conv = f"chat-{u:02d}"
        asked_at = datetime(2025, 10, 1, 20, tzinfo=UTC) + timedelta(days=rng.randint(0, 60))
        days = sorted(rng.sample(range(5, 240), 18), reverse=True)
        times: list[datetime] = []
        for d in days:  # one to three sessions a day
            for h in sorted(rng.sample(range(8, 22), rng.randint(1, 3))):
                times.append(
                    (asked_at - timedelta(days=d)).replace(hour=h, minute=rng.randint(0, 59))
                )
        times.sort()
        n = len(times)
        topics = [rng.choice(sorted(TOPICS)) for _ in range(n)]
        plan: dict[int, list[tuple[str, Any]]] = {}  # session → [(text, tag)]
        asks: list[dict[str, Any]] = []

        def session_on(topic: str, topics: list[str] = topics, n: int = n) -> int:
            pick = [s for s in range(n) if topics[s] == topic] or list(range(n))
            s = rng.choice(pick)
            topics[s] = topic
            return s

        def plant(s: int, text: str, tag: Any, plan: dict[int, list[Any]] = plan) -> None:
            plan.setdefault(s, []).append((text, tag))

        for i, (topic, said, asked, fam) in enumerate(rng.sample(RARE, 3)):
            tag = ("rare-name", fam, i)
            plant(session_on(topic), said, tag)
            asks.append({"category": "rare-name", "family": fam, "question": asked, "tag": tag})
        for i, (topic, said, asked, fam) in enumerate(rng.sample(SPELLING, 3)):
            tag = ("spelling", fam, i)
            plant(session_on(topic), said, tag)
            asks.append({"category": "spelling", "family": fam, "question": asked, "tag": tag})
        topic, thing, values = rng.choice(OUTINGS)
        fam = rng.randrange(4)
        ago, back = rng.choice(AGO)
        target = asked_at - timedelta(days=back)
        order = sorted(range(n), key=lambda s: abs((times[s] - target).total_seconds()))
        far = [s for s in order if abs((times[s] - target).days) > 30]
        chosen = [order[0], *rng.sample(far, min(3, len(far)))]
        for s, v in zip(chosen, values, strict=False):
            topics[s] = topic
            plant(
                s, OUTING_SAY[fam].format(thing=thing, v=v), ("relative-time", fam, s == chosen[0])
            )
        ask = OUTING_ASK[fam].format(thing=thing, ago=ago)
        tag = ("relative-time", fam, True)
        asks.append({"category": "relative-time", "family": fam, "tag": tag, "question": ask})
        topic, activity = rng.choice(ACTIVITIES)
        fam = rng.randrange(4)
        for s in rng.sample(range(n), rng.randint(3, 5)):
            plant(s, COUNT_SAY[fam].format(a=activity), ("counting", fam, 0))
        for s in rng.sample(range(n), 3):  # sessions that only talk about it
            topics[s] = topic
            plant(s, f"Should I do the {activity} in the morning or the evening?", [activity])
        asks.append({"category": "counting", "family": fam, "tag": ("counting", fam, 0),
                     "question": COUNT_ASK[fam].format(a=activity)})  # fmt: skip
        topic, said, asked, fam = rng.choice(RECOMMEND)
        tag = ("assistant-said", fam, 0)
        plant(session_on(topic), "What would you recommend?", ("recommend", said, tag))
        asks.append({"category": "assistant-said", "family": fam, "question": asked, "tag": tag})
        topic, qs, values, says = rng.choice(UPDATES)
        fam = rng.randrange(4)
        picks = sorted(rng.sample(range(n), rng.randint(2, 3)))
        for j, (s, v) in enumerate(zip(picks, values, strict=False)):
            plant(s, says[fam].format(v=v), ("knowledge-update", fam, j == len(picks) - 1))
        asks.append({"category": "knowledge-update", "family": fam, "question": qs[fam],
                     "tag": ("knowledge-update", fam, True)})  # fmt: skip
        if asked_facts:  # its own random stream: the choices above stay as they were
            arng = random.Random(f"{seed}:{u}:asked")
            for i, (topic, said, q, fam) in enumerate(arng.sample(ASKED, 3)):
                tag = ("asked-fact", fam, i)
                plant(arng.choice([s for s in range(n) if topics[s] == topic] or [0]), said, tag)
                asks.append({"category": "asked-fact", "family": fam, "question": q, "tag": tag})
        for on, module, stream in ((preferences, preference_data, "preference"),
                                   (orders, order_data, "order")):  # fmt: skip
            if on:  # each its own random stream too
                module.plant(random.Random(f"{seed}:{u}:{stream}"), topics, plant, asks)

        evidence: dict[Any, list[str]] = {}
        replies: list[tuple[str, str]] = []  # (turn id, text) of assistant replies
        counter = 0
        for s in range(n):
            if haystack is None:
                rows = _generated(rng, topics[s], plan.get(s, []))
            else:
                rows = _real(rng, haystack, plan.get(s, []))
            for speaker, said_text, t in rows:
                counter += 1
                turn_id = f"{conv}:t{counter:05d}"
                session = f"{conv}:s{s:03d}"
                turns.append(turn(conv, session, times[s], turn_id, speaker, said_text))
                if isinstance(t, tuple):
                    key = t if t[0] not in {"relative-time", "knowledge-update"} else t[:2]
                    if t[0] in {"relative-time", "knowledge-update"} and not t[2]:
                        key = (*t[:2], "other")
                    evidence.setdefault(key, []).append(turn_id)
                if speaker == "assistant":
                    replies.append((turn_id, said_text))
        fam = rng.randrange(4)
        quote_id, quoted = _quote(rng, replies)
        evidence[("quote", fam, 0)] = [quote_id]
        asks.append({"category": "quote", "family": fam, "tag": ("quote", fam, 0),
                     "question": QUOTE_ASK[fam].format(q=quoted)})  # fmt: skip
        for i, a in enumerate(asks, start=1):
            tag = a["tag"]
            key = tag[:2] if tag[0] in {"relative-time", "knowledge-update"} else tag
            gold = evidence.get(key, [])
            if tag[0] == "knowledge-update":
                gold = gold[-1:]
            questions.append({
                "conv_id": conv,
                "question_id": f"{conv}:q{i}",
                "question": a["question"],
                "question_date": asked_at.isoformat(),
                "category_name": a["category"],
                "family": a["family"],
                "split": SPLIT[a["family"]],
                "evidence_turn_ids": gold,
            })  # fmt: skip
    return turns, questions


def write(
    out: Path,
    users: int,
    seed: int,
    *,
    real: bool = False,
    asked: bool = False,
    preferences: bool = False,
    orders: bool = False,
) -> tuple[Path, Path]:
    haystack = conversations() if real else None
    made = generate(
        users, seed, haystack, asked_facts=asked, preferences=preferences, orders=orders
    )
    return save(out, *made)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=8)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--haystack",
        choices=["generated", "sharegpt"],
        default="generated",
        help="sharegpt: real conversations (bench/sharegpt.py) in place of generated sessions",
    )
    parser.add_argument(
        "--asked", action="store_true", help="also facts said inside requests (asked_data.py)"
    )
    parser.add_argument(
        "--preferences", action="store_true", help="also tastes asked for (preference_data.py)"
    )
    parser.add_argument(
        "--orders", action="store_true", help="also two things asked in order (order_data.py)"
    )
    args = parser.parse_args()
    paths = write(
        args.out,
        args.users,
        args.seed,
        real=args.haystack == "sharegpt",
        asked=args.asked,
        preferences=args.preferences,
        orders=args.orders,
    )
    print(json.dumps({"turns": str(paths[0]), "questions": str(paths[1])}))
