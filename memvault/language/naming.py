"""A question asking which thing ("Which fund did you recommend to me?", "What walking route
did you suggest?") is answered by a turn that names one: a sentence that shares a word with
the question and says a capitalised name the question does not ("A good choice would be a
Vanguard LifeStrategy fund for simplicity."). Among turns that share the question's words
alike ("index fund" in every reply), the one that names something is the one that answers.
Grammar only (question words, capitals, sentences): no names are looked up. Pure."""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

from memvault.language.asked import asked_kind, asks_amount
from memvault.language.stem import stem
from memvault.language.when import MONTHS_AND_DAYS, asks_when
from memvault.language.words import STOPWORDS, tokens

# "which" / "what" and the noun phrase it opens ("what marathon method"), not a verb ("what
# did", "what is") nor a pronoun ("what you")
_WHICH = re.compile(r"\b(?:which|what)\s+([A-Za-z][\w'’-]*)", re.IGNORECASE)
_NOT_A_THING = frozenset(
    "do does did is are was were am has have had will would can could should may might "
    "i you he she it we they my your his her our their to about if else of".split()
)
# "what kind of pottery", "which types of cars": a kind is asked for, not one thing by name
_KIND = frozenset("kind kinds sort sorts type types".split())
# what a time or an amount question asks ("what time", "what year") has its own lift
_TIME_NOUNS = frozenset("time day date year month week hour age".split())
_SENTENCE = re.compile(r"[.!?;:]\s+|\n+")
# a capitalised word: in ASCII text by the regex alone; elsewhere any word that opens with a
# letter, a name when that letter is a capital (str.isupper: "Zürich", "Ørsted")
_NAME = re.compile(r"(?<![\w'’-])[A-Z][\w'’-]*")
_WORD = re.compile(r"(?<![\w'’-])[^\W\d_][\w'’-]*")
_NOT_A_NAME = frozenset("i i'm i'd i've i'll ok okay".split())
_LETTER = re.compile(r"[^\W\d_]")


def asks_which_thing(question: str) -> bool:
    """The question asks which thing of a kind, by a noun after "which" or "what": not a
    place or a person (their own lifts), a time or an amount, nor a kind ("what kind of")."""
    m = _WHICH.search(question)
    if m is None:
        return False
    noun = m.group(1).lower()
    if noun in _NOT_A_THING or noun in _TIME_NOUNS or noun in _KIND:
        return False
    return asked_kind(question) is None and not asks_when(question) and not asks_amount(question)


def question_stems(question: str) -> frozenset[str]:
    """The stems of the question's telling words (no stop words)."""
    return frozenset(stem(w) for w in tokens(question) if w not in STOPWORDS and len(w) > 1)


def names_one(text: str, asked: frozenset[str], speakers: frozenset[str] = frozenset()) -> bool:
    """Whether a sentence of ``text`` shares a word (by stem) with the question whose stems
    are ``asked`` and names something the question does not: a capitalised word that is not
    the sentence's first, not "I", a month or a day, nor one of the chat's ``speakers``
    (lower-cased names and their parts: "Hey Calvin!" names no thing). The question's words
    are found first (one scan of the text), and only their sentences are read for names:
    recall asks this of every candidate of a question asking which thing."""
    shares = _sharing(asked)
    if shares is None:
        return False
    ends: list[int] = []
    read: set[int] = set()  # the sentences (by index) already read for names
    for w in shares.finditer(text):
        if stem(w.group().lower()) not in asked:
            continue  # "fundamental" begins with "fund" and is another word
        if not ends:
            ends = [b.end() for b in _SENTENCE.finditer(text)]
        i = bisect.bisect_right(ends, w.start())
        if i in read:
            continue
        read.add(i)
        begin = ends[i - 1] if i else 0
        stop = ends[i] if i < len(ends) else len(text)
        first = _LETTER.search(text, begin, stop)
        names = _NAME if text.isascii() else _WORD
        for m in names.finditer(text, begin, stop):
            if not m.group()[0].isupper():
                continue
            word = m.group().lower().strip("'’-")
            if first is not None and m.start() == first.start():
                continue  # the sentence's first word: capitalised whatever it is
            if word in _NOT_A_NAME or word in MONTHS_AND_DAYS or word in speakers:
                continue
            if stem(word) not in asked:
                return True
    return False


@lru_cache(maxsize=64)
def _sharing(asked: frozenset[str]) -> re.Pattern[str] | None:
    """The words of a sentence that begin with one of the question's stems ("recommended",
    "funds"): those whose own stem is one of them share a word with the question."""
    if not asked:
        return None
    alternatives = "|".join(sorted(map(re.escape, asked), key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})[\w'’-]*", re.IGNORECASE)
