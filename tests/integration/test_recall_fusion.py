"""Recall on long conversations (issue "Recall on real conversations"): a quoted run of words
finds its memory first, a one-digit difference is a difference, a rare name outranks a
frequent word, and each adjustment switched off by name changes only its own part."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memvault import FixedClock, MemVault
from memvault.embed.onnx import OnnxEmbedder
from memvault.kg.model import Episode
from tests.conftest import T0

FRAMES = [
    "When it comes to {a}, the most important thing is to be consistent rather than perfect.",
    "A lot of people find that {a} gets easier once {b} is part of a weekly routine.",
    "My favorite approach to {a} is to start small and see how it feels.",
    "You could also look at {b}, since many people say it was the thing that worked.",
    "Try not to change {a} and {b} at the same time, or it is hard to tell what helped.",
    "The usual advice on {b} is to think about cost, time and how much you enjoy it.",
    "A simple checklist for {b} can save a lot of time over the next few months.",
    "Many experts suggest reviewing {a} every few weeks and adjusting {b} as needed.",
]
WORDS = ["training", "recipes", "budget", "garden", "guitar", "travel", "sleep", "reading"]


def _long_reply(rng: random.Random) -> str:
    """An assistant reply of about 1,500 characters, of sentences every reply shares."""
    out: list[str] = []
    while sum(map(len, out)) < 1500:
        a, b = rng.sample(WORDS, 2)
        out.append(rng.choice(FRAMES).format(a=a, b=b))
    return " ".join(out)


@pytest.fixture
def chat(vault: MemVault) -> tuple[MemVault, list[str], list[str]]:
    """Twelve sessions of short user turns and long assistant replies."""
    rng = random.Random(3)
    items, texts = [], []
    for s in range(12):
        for t in range(4):
            user = f"Question {s}-{t}: could you help me with my {rng.choice(WORDS)}?"
            for speaker, text in (("user", user), ("assistant", _long_reply(rng))):
                texts.append(text)
                items.append({
                    "content": text,
                    "speaker": speaker,
                    "session_id": f"s{s}",
                    "occurred_at": T0 - timedelta(days=60 - 4 * s, minutes=-t),
                })  # fmt: skip
    ids = vault.write_many(items, namespace="chat").episode_ids
    return vault, ids, texts


def test_a_run_of_words_quoted_from_the_middle_of_a_long_turn_finds_it_first(
    chat: tuple[MemVault, list[str], list[str]],
) -> None:
    vault, ids, texts = chat
    at = 41  # an assistant reply: long, made of sentences every reply shares
    words = texts[at].split()
    for start in range(len(words) // 3, len(words)):
        quote = " ".join(words[start : start + 7])
        if sum(quote in text for text in texts) == 1:  # said in this reply only
            break
    else:
        pytest.fail("no run of seven words unique to the reply")
    hits = vault.recall(f'You once wrote "{quote}", what was that about?', namespace="chat", k=10)
    assert hits[0].id == ids[at]
    assert hits[0].explanation is not None and hits[0].explanation.factors.quoted >= 7
    # switched off by name, the quote is one candidate among many
    vault.settings.recall.phrase_words = 0
    vault.recaller.s.phrase_words = 0
    plain = vault.recall(f'You once wrote "{quote}", what was that about?', namespace="chat")
    assert all(h.explanation is None or h.explanation.factors.quoted == 0 for h in plain)


def test_a_quotation_of_common_words_alone_still_finds_its_memory_first(
    chat: tuple[MemVault, list[str], list[str]],
) -> None:
    """Quoted by the user, every word counts: "help you do that. At the" (a quote of a real
    shared chat) has one word that is not a stop word, which no run of the query's own words
    may rest on; in quotation marks it is what the user remembers word for word. The same
    words without the marks, and a quotation the memory holds only in part, find nothing
    first."""
    vault, _, texts = chat
    said = "Sure, I can help you do that. At the end of each week, note what changed."
    at = vault.write(said, speaker="assistant", namespace="chat", now=T0).id
    assert sum("help you do that. At the" in t for t in texts) == 0
    hits = vault.recall('You once wrote "help you do that. At the", what was that about?',
                        namespace="chat", k=3)  # fmt: skip
    assert hits[0].id == at and hits[0].explanation.factors.quoted == 6
    unquoted = vault.recall("You once wrote help you do that. At the", namespace="chat", k=3)
    assert all(h.explanation.factors.quoted == 0 for h in unquoted)
    partial = vault.recall('Did you write "help you do that at the start"?', namespace="chat")
    assert all(h.explanation.factors.quoted == 0 for h in partial)


def test_a_sibling_that_differs_in_one_digit_does_not_outrank_the_exact_words(
    vault: MemVault,
) -> None:
    said = {}
    for n, day in (("3", 1), ("7", 5), ("12", 9)):
        text = f"I fixed bug #{n} in the billing service today."
        said[n] = vault.write(text, speaker="Ana", now=T0 + timedelta(days=day)).id
    later = T0 + timedelta(days=30)
    for n, episode_id in said.items():
        hits = vault.recall(f"I fixed bug #{n} in the billing service today.", k=1, now=later)
        assert [h.id for h in hits] == [episode_id], n
    hits = vault.recall("bug #3", k=1, now=later)  # a short question: the digit is a keyword
    assert hits[0].id == said["3"]


def test_a_rare_name_outranks_turns_that_share_only_a_frequent_word(
    chat: tuple[MemVault, list[str], list[str]],
) -> None:
    vault, _, _ = chat
    rare = vault.write(
        "My physio, Dr. Okonkwo, told me to ice the knee twice a day.",
        speaker="user",
        namespace="chat",
        session_id="s5",
        now=T0 - timedelta(days=39),
    )
    hits = vault.recall("What was my favorite advice from Dr. Okonkwo?", namespace="chat", k=3)
    assert hits[0].id == rare.id


def test_two_months_ago_prefers_the_turn_from_then_and_still_returns_the_others(
    vault: MemVault,
) -> None:
    at = T0 + timedelta(days=300)
    visits = {}
    for days, place in ((150, "Menya Koji"), (61, "Tonkotsu Ya"), (20, "Kuroi Bowl")):
        visits[days] = vault.write(
            f"Tried a new ramen place tonight: {place}.",
            speaker="user",
            session_id=f"s{days}",
            now=at - timedelta(days=days),
        ).id
    for n in range(6):
        vault.write(f"Any tips on keeping basil alive, week {n}?", speaker="user", now=at)
    question = "Which ramen place did I try about two months ago?"
    hits = vault.recall(question, k=5, now=at)
    assert hits[0].id == visits[61]
    assert hits[0].explanation is not None and hits[0].explanation.signals["time"] > 0.4
    assert set(visits.values()) <= {h.id for h in hits}
    vault.recaller.s.channel_weights["time"] = 0.0  # off by name: only its part goes
    plain = vault.recall(question, k=5, now=at)
    assert all(h.explanation is None or "time" not in h.explanation.signals for h in plain)


def _two_among_small_talk(
    vault: MemVault, first: str, second: str, said: datetime, second_days: float
) -> tuple[Episode, Episode]:
    """Two of the user's turns (the second ``second_days`` from the first) among six of
    small talk said with the first."""
    a = vault.write(first, speaker="user", now=said)
    b = vault.write(second, speaker="user", now=said + timedelta(days=second_days))
    for n in range(6):
        vault.write(f"Any tips on keeping basil alive, week {n}?", speaker="user", now=said)
    return a, b


def test_a_turn_that_tells_of_last_month_is_found_for_that_month(vault: MemVault) -> None:
    """Said in August, "last month I drove down to Sagres" is about July: asked what was done
    in July, it comes before a drive told the same week without a time; the time lift shows
    it, and switched off by name (``time_told``) the two drives lose that part."""
    said = datetime(2025, 8, 19, 18, tzinfo=UTC)
    told, other = _two_among_small_talk(
        vault,
        "Last month I drove down to Sagres with my sister.",
        "I drove up to Porto with my sister for the concert.",
        said,
        -1,
    )
    question = "Where did I drive to in July?"
    at = said + timedelta(days=20)
    hits = {h.id: h for h in vault.recall(question, k=5, now=at)}
    assert next(iter(hits)) == told.id
    lift = hits[told.id].explanation
    assert lift is not None and lift.signals["time"] > 0.45  # the time weight × about 1
    assert hits[told.id].score > hits[other.id].score
    vault.recaller.s.time_told = False  # off by name: the turn's own words no longer count
    off = {h.id: h for h in vault.recall(question, k=5, now=at)}
    assert off[told.id].explanation is not None
    assert off[told.id].explanation.signals.get("time", 0.0) < 0.2


def test_asked_when_a_turn_that_names_its_time_comes_first(vault: MemVault) -> None:
    """ "When did I see the castle?" asks for a time: of two turns about the castle, the one
    that says when ("last Friday") leads and its explanation says why; switched off by name
    (``channel_weights.when``), only that part goes and the other leads on its words."""
    said = datetime(2025, 11, 16, 15, tzinfo=UTC)
    dated, plain = _two_among_small_talk(
        vault,
        "Went to see a castle on my trip to the UK last Friday.",
        "The castle I went to see had a moat and a very old castle keep.",
        said,
        2,
    )
    question = "When did I go to see the castle?"
    hits = vault.recall(question, k=3, now=said + timedelta(days=30))
    assert hits[0].id == dated.id
    assert hits[0].explanation is not None and hits[0].explanation.signals["when"] == 0.2
    assert "names a time, asked when" in hits[0].explanation.text()
    vault.recaller.s.channel_weights["when"] = 0.0  # off by name
    off = vault.recall(question, k=3, now=said + timedelta(days=30))
    assert off[0].id == plain.id
    assert all(h.explanation is None or "when" not in h.explanation.signals for h in off)
    vault.recaller.s.channel_weights["when"] = 0.2  # on again: a question of where is not lifted
    where = vault.recall("Where did I go to see the castle?", k=3, now=said + timedelta(days=30))
    assert all(h.explanation is None or "when" not in h.explanation.signals for h in where)


def test_a_turn_that_only_asks_gives_its_place_to_one_that_tells(vault: MemVault) -> None:
    """ "Cool! What kind of music do you play?" shares the question's words and tells
    nothing: × 0.7, explained; a question about what was asked keeps it whole, and off by
    name (``channel_weights.asks``) only its part goes."""
    asks = vault.write("Cool! What kind of music do you play?", speaker="Caroline")
    tells = vault.write("Jazz is the kind of music I play, on the clarinet.", speaker="Melanie")
    for n in range(5):
        vault.write(f"Small talk about the garden, week {n}.", speaker="Melanie")
    question = "What kind of music does Melanie play?"
    ranked = vault.recall(question, k=5)
    order = [h.id for h in ranked]
    assert order.index(tells.id) < order.index(asks.id)
    asked = ranked[order.index(asks.id)].explanation
    assert asked is not None and asked.signals["asks"] == 0.3
    assert "only asks, tells nothing: × 0.70" in asked.text()
    told = ranked[order.index(tells.id)].explanation
    assert told is not None and "asks" not in told.signals
    about_asking = vault.recall("What did Caroline ask about music?", k=5)
    assert all(h.explanation is None or "asks" not in h.explanation.signals for h in about_asking)
    vault.recaller.s.channel_weights["asks"] = 0.0  # off by name: only its part goes
    whole = {h.id: h for h in vault.recall(question, k=5)}
    on = {h.id: h for h in ranked}
    assert whole[tells.id].score == pytest.approx(on[tells.id].score)
    assert whole[asks.id].score == pytest.approx(on[asks.id].score / 0.7, rel=0.01)
    assert all(h.explanation is None or "asks" not in h.explanation.signals for h in whole.values())


def test_a_fact_said_inside_a_request_keeps_its_whole_score(vault: MemVault) -> None:
    """ "Is it normal for my six-month-old to wake up every two hours?" is the only place the
    baby was mentioned: "my" tells it, so the asks cut leaves it whole; the listener's
    question beside it, asking and telling nothing, is cut."""
    told = vault.write(
        "Is it normal for my six-month-old to wake up every two hours at night?", speaker="user"
    )
    only = vault.write("How old is the dog next door, do you think?", speaker="user")
    for n in range(5):
        vault.write(f"Notes on the garden shed, part {n}.", speaker="user")
    ranked = {h.id: h for h in vault.recall("How old is my baby?", k=5)}
    kept, cut = ranked[told.id].explanation, ranked[only.id].explanation
    assert kept is not None and "asks" not in kept.signals
    assert cut is not None and cut.signals["asks"] == 0.3
    vault.recaller.s.channel_weights["asks"] = 0.0
    off = {h.id: h for h in vault.recall("How old is my baby?", k=5)}
    assert ranked[told.id].score / ranked[only.id].score == pytest.approx(
        off[told.id].score / off[only.id].score * 1 / 0.7, rel=0.01
    )


def _kids(vault: MemVault) -> str:
    for n in range(12):
        vault.write(f"The kids played outside on day {n} of the holiday.", speaker="Mel")
    vault.write("They were stoked for the dinosaur exhibit at the museum.", speaker="Mel")
    return "What do the kids enjoy?"


def test_words_many_memories_share_weigh_less_and_say_so(
    tmp_path: Path, minilm: OnnxEmbedder, clock: FixedClock
) -> None:
    """Twelve turns that match "kids" about alike: the keyword channel keeps half its weight
    for this query, and each of them says why; with ``keyword_standout`` 0 it keeps all of
    it, and nothing else in the explanation changes."""
    vault = MemVault.open(tmp_path / "minilm.db", embedder=minilm, clock=clock)
    question = _kids(vault)
    level = vault.recall(question, k=5)
    matched = [h for h in level if h.explanation and h.explanation.signals.get("keyword")]
    assert matched and all(h.explanation and h.explanation.signals["flat"] == 0.5 for h in matched)
    assert matched[0].explanation is not None
    assert "the keyword channel weighed × 0.50" in matched[0].explanation.text()
    vault.recaller.s.keyword_standout = 0.0
    whole = {h.id: h for h in vault.recall(question, k=5)}
    for h in matched:
        other = whole[h.id].explanation
        assert other is not None and h.explanation is not None and "flat" not in other.signals
        assert {k: v for k, v in h.explanation.signals.items() if k != "flat"} == other.signals


def test_with_the_hashing_fallback_level_matches_keep_their_weight(vault: MemVault) -> None:
    """The hashing fallback's vectors know words, not meaning: a memory that shares no word
    with the query is found by neither channel, so level keyword matches are the evidence
    there is and keep the channel's whole weight (as with ``keyword_standout`` 0)."""
    question = _kids(vault)
    level = vault.recall(question, k=5)
    assert level and all(h.explanation and "flat" not in h.explanation.signals for h in level)
    vault.recaller.s.keyword_standout = 0.0
    whole = vault.recall(question, k=5)
    assert [(h.id, h.score) for h in whole] == [(h.id, h.score) for h in level]


def test_the_grammatical_person_points_to_one_side_of_a_chat(vault: MemVault) -> None:
    """On by default (it earned its place among real conversations: docs/benchmarks.md):
    between the same words said by both sides, "which wine did you recommend" puts the
    assistant's first and "which wine did I pick" the user's; off by name, only its part
    goes and the two score the same."""
    mine = vault.write("The Rioja goes well with the lamb.", speaker="user", session_id="s1")
    yours = vault.write("The Rioja goes well with the lamb.", speaker="assistant", session_id="s1")
    for n in range(5):
        vault.write(f"Small talk about the garden, week {n}.", speaker="user", session_id="s2")
    asked_you = vault.recall("Which wine did you recommend for the lamb?", k=3)
    assert asked_you[0].id == yours.id
    assert asked_you[0].explanation is not None
    assert asked_you[0].explanation.signals["person"] == 1.0
    asked_me = vault.recall("Which wine did I pick for the lamb?", k=3)
    assert asked_me[0].id == mine.id
    assert asked_me[0].explanation is not None
    assert asked_me[0].explanation.signals["person"] == 1.0
    vault.recaller.s.channel_weights["person"] = 0.0  # off by name
    off = {h.id: h for h in vault.recall("Which wine did you recommend for the lamb?", k=3)}
    assert off[yours.id].score == pytest.approx(off[mine.id].score)
    assert all(h.explanation is None or "person" not in h.explanation.signals for h in off.values())


def test_a_request_to_the_assistant_asks_what_its_asker_said(vault: MemVault) -> None:
    """ "Can you recommend a wine for the lamb?" speaks to the assistant but asks for something
    new for its asker: the user's words lead; asked of the past, the assistant's."""
    mine = vault.write("The Rioja goes well with the lamb.", speaker="user", session_id="s1")
    yours = vault.write("The Rioja goes well with the lamb.", speaker="assistant", session_id="s1")
    asked_now = vault.recall("Can you recommend a wine for the lamb?", k=3)
    assert asked_now[0].id == mine.id
    assert asked_now[0].explanation is not None
    assert asked_now[0].explanation.signals["person"] == 1.0
    assert vault.recall("Could you repeat the wine you recommended?", k=3)[0].id == yours.id


def test_a_turn_that_says_nothing_answers_nothing(
    tmp_path: Path, minilm: OnnxEmbedder, clock: FixedClock
) -> None:
    """With the real embedder, "hello" and "continue" sit close in meaning to every short
    question: they rank below a statement that answers it, unless they share a word with the
    question; a note written on purpose is never cut; off by name, "hello" comes first."""
    vault = MemVault.open(tmp_path / "minilm.db", embedder=minilm, clock=clock)
    chat = [
        [("user", "hello"), ("assistant", "Hello! How can I help you today?")],
        [("user", "Write a haiku about autumn leaves."), ("assistant", "Crimson leaves drift.")],
        [("user", "continue"), ("assistant", "The path turns to gold in the wind.")],
        [("user", "I've been moved under Osei."), ("assistant", "Congratulations!")],
        [("user", "thanks"), ("assistant", "You're welcome!")],
    ]
    for n, session in enumerate(chat):
        for who, text in session:
            vault.write(text, speaker=who, session_id=f"s{n}")
    vault.write("Vegan.", type="user")
    question = "Who am I reporting to at the moment?"
    hits = vault.recall(question, k=10)
    order = [h.text for h in hits]
    for thin in ("hello", "continue", "thanks"):
        assert order.index("I've been moved under Osei.") < order.index(thin)
    hello = next(h for h in hits if h.text == "hello")
    assert hello.explanation is not None and hello.explanation.signals["thin"] == 0.5
    assert "says too little" in hello.explanation.text()
    said = next(h for h in vault.recall("When did I say hello?", k=3) if h.text == "hello")
    assert said.explanation is not None and "thin" not in said.explanation.signals
    note = next(h for h in vault.recall("What do I eat?", k=20) if h.text == "Vegan.")
    assert note.explanation is not None and "thin" not in note.explanation.signals
    vault.recaller.s.channel_weights["thin"] = 0.0  # off by name
    off = vault.recall(question, k=10)
    assert off[0].text == "hello"
    assert all(h.explanation is None or "thin" not in h.explanation.signals for h in off)
    vault.close()


def test_a_count_whose_evidence_spans_three_sessions_gets_each_of_them(
    tmp_path: Path, minilm: OnnxEmbedder, clock: FixedClock
) -> None:
    """One session talks of little else than salsa class; two later ones mention a class
    once each. "How many salsa classes have I been to?" needs all three: the chatty session
    does not take all ten places (its session lift is bounded)."""
    vault = MemVault.open(tmp_path / "minilm.db", embedder=minilm, clock=clock)
    chatty = [
        "Went to my first salsa class tonight!",
        "Salsa class was amazing, we practised the basic step for an hour.",
        "The salsa teacher says my timing on the basic step is getting better.",
        "I bought new salsa shoes with suede soles for class.",
        "After salsa class we went for tacos with the group.",
        "The salsa class next door is more advanced, maybe next term.",
        "Salsa class homework: practise turns in the kitchen.",
        "The salsa class has twelve people and only four leads.",
        "We learned a cross-body lead in salsa class.",
    ]
    said = {
        0: chatty,
        3: ["Salsa class again this evening, a new partner rotation."],
        7: ["Skipped the gym, went to salsa class instead."],
    }
    for week in range(10):
        turns = said.get(week, [f"Worked on the quarterly report, part {week}.", "Lentil soup."])
        for n, text in enumerate(turns):
            at = T0 + timedelta(days=7 * week, minutes=2 * n)
            vault.write(text, speaker="user", session_id=f"s{week}", occurred_at=at)
            reply = "That sounds great, tell me more."
            at += timedelta(minutes=1)
            vault.write(reply, speaker="assistant", session_id=f"s{week}", occurred_at=at)
    hits = vault.recall("How many salsa classes have I been to?", k=10, now=T0 + timedelta(days=80))
    sessions = {h.episode.session_id for h in hits if h.episode is not None}
    assert {"s0", "s3", "s7"} <= sessions
    vault.close()


def test_words_said_again_in_many_sessions_lend_one_session_a_lift(vault: MemVault) -> None:
    """The same line said in six sessions ("I finally found a good bakery close to home.")
    is one piece of evidence of a topic: only its best copy lends its session a lift, so the
    unrelated turns beside the other five copies keep their own score and do not crowd a
    turn that answers (here one that shares only "home" too, said once)."""
    for n in range(6):
        at = T0 + timedelta(days=7 * n)
        vault.write("I finally found a good bakery close to home.", speaker="user",
                    session_id=f"s{n}", occurred_at=at)  # fmt: skip
        vault.write(f"Worked on the quarterly report, part {n}.", speaker="user",
                    session_id=f"s{n}", occurred_at=at + timedelta(minutes=1))  # fmt: skip
    vault.write("Bolt the tortoise is at home with us now.", speaker="user", session_id="s9",
                occurred_at=T0 + timedelta(days=60))  # fmt: skip
    hits = vault.recall("Which animals are at home?", k=20, now=T0 + timedelta(days=61))
    by_text = {h.text: h for h in hits}
    copies = [h for h in hits if h.text.startswith("I finally found")]
    reports = [h for h in hits if h.text.startswith("Worked on")]
    assert len(copies) == 6 and len(reports) == 6
    lent = max(h.explanation.signals.get("session", 0.0) for h in copies)
    lifted = [h for h in reports if h.explanation.signals.get("session", 0.0) >= 0.99 * lent]
    assert len(lifted) == 1  # the session of the copy that lends, and no other
    tortoise = by_text["Bolt the tortoise is at home with us now."]
    assert all(tortoise.score > h.score for h in reports)
