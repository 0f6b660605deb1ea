"""The pure steps of recall's fusion, each a function of the candidates and the settings: the
base relevance (score or rank fusion of the dense, keyword and graph channels), and the
adjustments on top of it that need no store: who said it (actor), the session's best
(session), the time the question names (time), a time a turn names when asked when (when), a
number a turn says when asked how many or how much (amount), a place a turn names when asked
where (where), a thing a turn names when asked which (names), the query's words quoted
verbatim (phrase), a turn that says too little (thin) or only asks (asks); and the memories
closest to each of two things a question asks about (parts), which ranking gives a place.
Each records its signal on the candidates, so a hit's explanation shows its part, and each
is switched off by name (a weight of 0, ``phrase_words = 0``). The context lift reads the
store (session neighbours) and lives in the engine."""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Callable, Mapping
from datetime import datetime

import numpy as np

from memvault.config import RecallSettings
from memvault.embed.steady import steady
from memvault.kg.model import Episode, MemoryType, normalize_name, words_said
from memvault.language.asked import asked_kind, asks_amount, asks_to_count
from memvault.language.claims import states_amount
from memvault.language.mood import asks_only
from memvault.language.naming import asks_which_thing, names_one, question_stems
from memvault.language.places import names_a_place
from memvault.language.told import told
from memvault.language.when import asks_when, window
from memvault.language.words import says_little
from memvault.recall.candidates import Candidates, Key
from memvault.recall.query import longest_run, plain_words, quotations

CHANNELS = ("dense", "keyword", "graph")


def parts(c: Candidates, vectors: list[np.ndarray], n: int) -> None:
    """For a question about two things (memvault.language.asked.two_things), the ``n``
    candidate episodes closest in meaning to each thing, marked with that cosine as the
    ``parts`` signal: ranking gives each a place among the first ten. "How long was it from putting
    the fruit tree in until presenting the numbers to the directors?" is two questions; the
    turns that share the first half's words fill the list, and the one telling of the
    presentation answers the second."""
    for v in vectors:
        unit = v / (np.linalg.norm(v) or 1.0)
        near = {
            key: steady(float(vec @ unit)) for key in c.keys
            if key[0] == "episode" and (vec := c.vectors.get(key)) is not None
        }  # fmt: skip
        for key in c.by_score(near, "episode")[:n]:
            c.signal["parts"][key] = max(near[key], c.signal["parts"].get(key, 0.0))


def quoted(c: Candidates, query: str, min_words: int) -> None:
    """The longest run of the query's words each possible quote holds verbatim (at least
    ``min_words``), as the ``phrase`` signal; ranking puts those first."""
    words, quoted = plain_words(query), quotations(query, min_words)
    for rid in c.quoting:
        e = c.episodes.get(rid)
        run = longest_run(words, e.content, quoted) if e is not None else 0
        if min_words > 0 and run >= min_words:
            c.signal["phrase"][("episode", rid)] = float(run)


def base(
    c: Candidates, s: RecallSettings, query: str = "", *, meaning: bool = True
) -> dict[Key, float]:
    """What the memory says: dense, keyword and graph signals, each scaled by its best
    (``fusion = "score"``) or by its rank among the candidates (``"rank"``); the keyword
    channel weighed for ``query`` by ``keyword_trust`` where the dense channel reads
    ``meaning`` (not the hashing fallback, whose vectors know only words)."""
    w = s.channel_weights
    if s.fusion == "rank":
        return rank_base(c, w, s.rank_k)
    tops = {
        name: max((max(v, 0.0) for v in c.signal[name].values()), default=0.0) for name in CHANNELS
    }
    trust = keyword_trust(c, s, query) if meaning else 1.0
    weights = {name: w.get(name, 0.0) * (trust if name == "keyword" else 1.0) for name in CHANNELS}
    out: dict[Key, float] = {}
    for key in c.keys:
        total = 0.0
        for name, top in tops.items():
            if top > 0:
                total += weights[name] * max(c.signal[name].get(key, 0.0), 0.0) / top
        out[key] = total
    return out


def keyword_trust(c: Candidates, s: RecallSettings, query: str = "") -> float:
    """The share of its weight the keyword channel keeps for this query: whole when its best
    match stands out from its best ten (best / mean - 1 ≥ ``keyword_standout``), less in
    proportion when they are level, ``keyword_flat_weight`` at the least. Level scores mean
    the query's words are ones many memories share ("What do Melanie's kids like?" among a
    chat full of kids), and the memory that answers may share none; unless the query asks to
    count ("how many salsa classes…"), when every memory saying its words is evidence. Only
    where the dense channel reads meaning: with the hashing fallback, a memory that shares
    none of the query's words is found by neither channel, and the level matches are the
    evidence there is (a rare name that a dozen memories hold alike: docs/benchmarks.md,
    "Tiers: six simulated months").
    Recorded as the ``flat`` signal of each memory the channel found."""
    found = sorted((v for v in c.signal["keyword"].values() if v > 0), reverse=True)
    if s.keyword_standout <= 0 or len(found) < _LEVEL_OF or asks_to_count(query):
        return 1.0
    standout = found[0] / (sum(found[:_LEVEL_OF]) / _LEVEL_OF) - 1.0
    trust = max(s.keyword_flat_weight, min(1.0, standout / s.keyword_standout))
    if trust < 1.0:
        for key in c.signal["keyword"]:
            c.signal["flat"][key] = round(trust, 6)
    return trust


_LEVEL_OF = 10  # the best this many keyword matches are what its best must stand out from


def rank_base(c: Candidates, w: Mapping[str, float], k: int) -> dict[Key, float]:
    """Weighted reciprocal ranks: a channel's best candidate gets the channel's weight, its
    r-th ``w·(k+1)/(k+r)``; a candidate the channel did not find gets nothing from it. Ranks
    keep a rare strong match from being drowned by a channel whose scores are bunched
    (cosines of long turns) or spiky (bm25), whatever the scale."""
    out: dict[Key, float] = dict.fromkeys(c.keys, 0.0)
    for name in CHANNELS:
        weight = w.get(name, 0.0)
        found = [(v, key) for key, v in c.signal[name].items() if v > 0 and key in out]
        if weight <= 0 or not found:
            continue
        found.sort(key=lambda item: (-item[0], item[1]))
        for r, (_, key) in enumerate(found, start=1):
            out[key] += weight * (k + 1) / (k + r)
    return out


def dense_base(cosine: float, dense: list[float], s: RecallSettings) -> float:
    """The base of a turn only the dense signal knows (a neighbour joining late): its cosine
    over the best (score fusion), or the reciprocal of the rank its cosine has among the
    candidates' (rank fusion). ``dense``: the positive cosines, best first."""
    weight = s.channel_weights.get("dense", 0.0)
    if cosine <= 0 or not dense:
        return 0.0
    if s.fusion == "score":
        return weight * cosine / dense[0]
    r = 1 + bisect.bisect_left([-v for v in dense], -cosine)
    return weight * (s.rank_k + 1) / (s.rank_k + r)


def actor_bonus(
    c: Candidates, score: dict[Key, float], named: set[str], w: Mapping[str, float]
) -> dict[Key, float]:
    """Who said it: a memory whose speaker (a fact: whose subject) the query names."""
    weight = w.get("actor", 0.0)
    if not named or weight <= 0:
        return score
    out = dict(score)
    for key in score:
        if actor(c, key) in named:
            c.signal["actor"][key] = 1.0
            out[key] += weight
    return out


def person_bonus(
    c: Candidates, score: dict[Key, float], meant: set[str], w: Mapping[str, float]
) -> dict[Key, float]:
    """Which side of a chat the question's grammatical person points to (memvault/language/
    person.py): in a chat with an assistant, "what did you recommend" lifts the assistant's
    turns, "what is my favourite colour" the person's."""
    weight = w.get("person", 0.0)
    if not meant or weight <= 0:
        return score
    out = dict(score)
    for key in score:
        if key[0] == "episode" and actor(c, key) in meant:
            c.signal["person"][key] = 1.0
            out[key] += weight
    return out


def actor(c: Candidates, key: Key) -> str | None:
    kind, rid = key
    if kind == "episode":
        e = c.episodes.get(rid)
        return normalize_name(e.speaker) if e and e.speaker else None
    f = c.facts.get(rid)
    return normalize_name(f.subject) if f else None


def session_lift(
    c: Candidates, score: dict[Key, float], w: Mapping[str, float]
) -> dict[Key, float]:
    """Every memory takes ``w_session`` × the best score in its session (topics cluster);
    of words said again by one speaker only the best scored copy counts there
    (:func:`_one_copy_each`)."""
    weight = w.get("session", 0.0)
    if weight <= 0:
        return score
    best: dict[str, float] = defaultdict(float)
    source: dict[str, str] = {}
    lends = _one_copy_each(c, score)
    for (kind, rid), value in score.items():
        e = c.episodes.get(rid) if kind == "episode" else None
        if e is None or e.session_id is None or rid not in lends:
            continue
        if value > best[e.session_id]:
            best[e.session_id], source[e.session_id] = value, rid
    out = dict(score)
    for key in score:
        e = c.episodes.get(key[1]) if key[0] == "episode" else None
        if e is not None and e.session_id is not None:
            c.signal["session"][key] = weight * best[e.session_id]
            out[key] += c.signal["session"][key]
            if e.session_id in source:
                c.lent[("session", key)] = source[e.session_id]
    return out


def _one_copy_each(c: Candidates, score: dict[Key, float]) -> set[str]:
    """The episodes that may lend their session a lift: of the same words said again by the
    same speaker ("I finally found a good bakery close to home." in six sessions), the best
    scored copy only (ties: the newest, as :meth:`Candidates.by_score` orders). One saying
    is one piece of evidence of a topic, however often it was repeated."""
    best: dict[tuple[str, str], tuple[float, str]] = {}
    for key in c.by_score(score, "episode"):
        e = c.episodes.get(key[1])
        if e is not None:
            best.setdefault(words_said(e), (score[key], key[1]))
    return {rid for _, rid in best.values()}


def time_lift(
    c: Candidates,
    score: dict[Key, float],
    query: str,
    at: datetime,
    w: Mapping[str, float],
    least_days: float = 1.0,
    told_times: bool = False,
) -> dict[Key, float]:
    """A question that names a time ("about two months ago", "in March") favours the
    memories from then: × (1 + w_time · closeness), closeness 1 at the window's centre and
    fading with distance (memvault.language.when). Never a filter. ``told_times``: a turn
    is also from the times its own words name ("last month", memvault.language.told)."""
    weight = w.get("time", 0.0)
    found = window(query, at, least_days) if weight > 0 else None
    if found is None:
        return score
    out = dict(score)
    for key, value in score.items():
        kind, rid = key
        record = c.episodes.get(rid) if kind == "episode" else c.facts.get(rid)
        if record is None:
            continue
        if isinstance(record, Episode):
            closeness = found.weight(record.occurred_at)
            if told_times:
                named = told(record.content, record.occurred_at)
                closeness = max([closeness, *(found.meets(t) for t in named)])
        else:
            closeness = found.weight(record.valid_at)
        lift = weight * closeness
        if lift >= 1e-3:
            c.signal["time"][key] = round(lift, 6)
            out[key] = value * (1.0 + lift)
    return out


def when_lift(
    c: Candidates, score: dict[Key, float], query: str, w: Mapping[str, float]
) -> dict[Key, float]:
    """A question asking when ("When did Maria meet Jean?") favours the turns that name a
    time of their own ("last Friday", "two days ago": memvault.language.told), which say
    when: × (1 + ``w_when``). Conversation turns only; never a filter."""
    weight = w.get("when", 0.0)
    if weight <= 0 or not asks_when(query):
        return score
    return _turns_scaled(
        c, score, "when", weight, 1.0 + weight, lambda _, e: bool(told(e.content, e.occurred_at))
    )


def amount_lift(
    c: Candidates, score: dict[Key, float], query: str, w: Mapping[str, float]
) -> dict[Key, float]:
    """A question asking for an amount ("How many people am I cooking for?", "How old is
    Jolene?": memvault.language.asked) favours the conversation turns that say a number
    ("… a vegetarian lasagne for twelve guests?"), which may share no word with it: ×
    (1 + ``w_amount``). Not a question that counts occurrences ("how many times"), whose
    evidence is every turn telling of one. Conversation turns only; never a filter."""
    weight = w.get("amount", 0.0)
    if weight <= 0 or not asks_amount(query):
        return score
    return _turns_scaled(
        c, score, "amount", weight, 1.0 + weight, lambda _, e: states_amount(e.content)
    )


def where_lift(
    c: Candidates, score: dict[Key, float], query: str, w: Mapping[str, float]
) -> dict[Key, float]:
    """A question asking where ("Where am I living at the moment?": memvault.language.asked)
    favours the conversation turns that name a place ("Signed the lease in Ealing today.":
    memvault.language.places), which may share no word with it: × (1 + ``w_where``).
    Conversation turns only; never a filter."""
    weight = w.get("where", 0.0)
    if weight <= 0 or asked_kind(query) != "place":
        return score
    return _turns_scaled(
        c, score, "where", weight, 1.0 + weight, lambda _, e: names_a_place(e.content)
    )


def names_lift(
    c: Candidates,
    score: dict[Key, float],
    query: str,
    speakers: set[str],
    w: Mapping[str, float],
) -> dict[Key, float]:
    """A question asking which thing ("Which fund did you recommend to me?":
    memvault.language.naming) favours the conversation turns with a sentence that shares its
    words and names one ("… a Vanguard LifeStrategy fund for simplicity."), over turns that
    share its words alike and name nothing: × (1 + ``w_names``). The chat's ``speakers``
    (lower-cased names and their parts) name no thing. Conversation turns only; never a
    filter."""
    weight = w.get("names", 0.0)
    if weight <= 0 or not asks_which_thing(query):
        return score
    asked, said = question_stems(query), frozenset(speakers)
    return _turns_scaled(
        c, score, "names", weight, 1.0 + weight, lambda _, e: names_one(e.content, asked, said)
    )


_ABOUT_ASKING = frozenset({"ask", "asked", "asking", "question", "questions"})


def asks_cut(
    c: Candidates, score: dict[Key, float], query: str, speakers: set[str], w: Mapping[str, float]
) -> dict[Key, float]:
    """A conversation turn that only asks ("Cool! What type of music do you play?":
    memvault.language.mood) tells nothing, yet shares the topic's words: its score × (1 −
    ``w_asks``), unless the query quotes it or asks about asking ("what did I ask you...")."""
    weight = w.get("asks", 0.0)
    if weight <= 0 or _ABOUT_ASKING & set(plain_words(query)):
        return score
    return _turns_scaled(
        c,
        score,
        "asks",
        weight,
        1.0 - weight,
        lambda key, e: key not in c.signal["phrase"] and asks_only(e.content, speakers),
    )


def thin_cut(c: Candidates, score: dict[Key, float], w: Mapping[str, float]) -> dict[Key, float]:
    """A turn that says next to nothing ("hello", "continue", "Thanks!") answers no question,
    yet a short text's meaning sits close to every short question's: its score × (1 −
    ``w_thin``), unless it shares a word with the query (the keyword channel found it: "Osei."
    asked "who is Osei?") or the query quotes it. Only conversation turns (episodic): a note
    written on purpose keeps its score however short."""
    weight = w.get("thin", 0.0)
    if weight <= 0:
        return score
    return _turns_scaled(
        c,
        score,
        "thin",
        weight,
        1.0 - weight,
        lambda key, e: (
            c.signal["keyword"].get(key, 0.0) <= 0
            and key not in c.signal["phrase"]
            and says_little(e.content)
        ),
    )


def _turns_scaled(
    c: Candidates,
    score: dict[Key, float],
    signal: str,
    weight: float,
    factor: float,
    chosen: Callable[[Key, Episode], bool],
) -> dict[Key, float]:
    """The conversation turns (episodic: a note written on purpose is not one) that
    ``chosen`` picks, their score × ``factor``, the ``signal`` recorded as ``weight``."""
    out = dict(score)
    for key in score:
        e = c.episodes.get(key[1]) if key[0] == "episode" else None
        if e is not None and e.type == MemoryType.EPISODIC and chosen(key, e):
            c.signal[signal][key] = weight
            out[key] *= factor
    return out
