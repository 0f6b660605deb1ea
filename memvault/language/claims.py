"""What tells two claims apart, whatever else they share: the tokens a merge must never lose.

Two memories that differ in a number (an amount, an id like ``#101``, a version, a time, a
date), a name, a number word or a negation make different claims, however close their
meaning vectors: "I fixed bug #12 in billing" and "I fixed bug #101 in billing" are two
events (cosine 0.98 with MiniLM). :func:`distinguishing` returns what one says and the other
does not; a non-empty answer forbids a merge.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memvault.language.lexicon import common_word
from memvault.language.words import STOPWORDS

_NUMBER = re.compile(r"[#$€£¥]?\w*\d[\w.,:/%-]*")  # a token with a digit: #12 v1.2.3 9:30pm 4B
_WORD = re.compile(r"(?<!\w)[^\W\d_][\w'’-]*")
NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty "
    "ninety hundred thousand million billion dozen half twice once first second third fourth "
    "fifth".split()
)
# the number words that state an amount ("twelve guests", "a six-month-old"): not "one",
# "once" or the ordinals, which are mostly pronouns and order ("the one I bought", "first")
AMOUNT_WORDS = NUMBER_WORDS - frozenset(
    "zero one once half twice first second third fourth fifth".split()
)
NEGATIONS = frozenset("not no never nothing none nobody nowhere neither nor without cannot".split())
# capitalised words that are no name: function words and openers, capitalised only because
# a sentence starts with them
_OPENERS = frozenset(
    "i i'm i've i'd i'll a an the my our your his her their its we you he she it they this "
    "that these those there here today yesterday tomorrow tonight now then so and but or also "
    "just oh ok okay well yes yeah hi hey hello thanks thank sure what when where why how who "
    "which if in on at for with to from of as after before last next still really please "
    "maybe sorry great good nice wow".split()
)


def _normal(token: str) -> str:
    return token.lower().rstrip(".,:;/-").replace("’", "'")


def claim_tokens(text: str) -> set[str]:
    """The numbers, names, number words and negation of ``text`` (negation as ``"¬"``)."""
    out = {_normal(m.group(0)) for m in _NUMBER.finditer(text)}
    for m in _WORD.finditer(text):
        word = m.group(0)
        low = _normal(word)
        if low in NUMBER_WORDS:
            out.add(low)
        elif low in NEGATIONS or low.endswith("n't"):
            out.add("¬")
        elif word[0].isupper() and low not in _OPENERS:
            out.add(low)
    return out


_DIGIT = re.compile(r"\d")
_APART = str.maketrans(dict.fromkeys("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~’‘“”…", " "))


def states_amount(text: str) -> bool:
    """``text`` says a number: a digit ("9:30", "2023", "$40") or a number word of two or
    more ("twelve guests", "a six-month-old"). Recall asks it of every candidate of a
    question asking how many (~18 µs for 1,500 characters)."""
    if _DIGIT.search(text):
        return True
    return not AMOUNT_WORDS.isdisjoint(text.lower().translate(_APART).split())


def _words(text: str) -> set[str]:
    return {_normal(m.group(0)) for m in _WORD.finditer(text)}


def distinguishing(a: str, b: str) -> set[str]:
    """What one text claims that the other does not: numbers, names, number words, a negation
    in one only. A word capitalised in one and written in the other in lower case ("Standup
    moved" / "the standup moved") is the same word. Empty: nothing tells them apart but
    wording."""
    ta, tb = claim_tokens(a), claim_tokens(b)
    return {t for t in ta - tb if t not in _words(b)} | {t for t in tb - ta if t not in _words(a)}


def said_apart(a: str, b: str) -> set[str]:
    """The words (stop words aside) one text has and the other lacks: what a merge of the two
    would lose beyond wording ("… and schedule job" in one only; "top left corner" against
    "bottom right corner"; ``actionAssignedToMe`` against ``actionAssignedByMe``). Empty: the
    two say the same words, told apart only by stop words, case and punctuation."""
    return content_words(a) ^ content_words(b)


def content_words(text: str) -> set[str]:
    """The words of ``text`` that are not stop words, lower case."""
    return {w for w in _words(text) if w not in STOPWORDS}


_TOKEN = re.compile(r"[#$€£¥]?\w[\w'’.:/%-]*")


@lru_cache(maxsize=4096)  # one recall asks for a leading statement's frame three times
def frame(text: str) -> tuple[str, ...] | None:
    """``text`` with its numbers and names as slots, one slot per run of them: "I've been
    moved under Osei." → ``("i've", "been", "moved", "under", "_")``. Two statements of one
    frame with other values say one thing about different values ("Our new flat is in
    Walthamstow." / "... in Ealing."). None without a slot, or with fewer than three other
    words (too little to be one thing: "Thanks, Mel!")."""
    out: list[str] = []
    for n, m in enumerate(_TOKEN.finditer(text)):
        token = _normal(m.group(0))
        raw = m.group(0)
        # a capital is a name's, but the first word's may be the sentence's ("Long day...")
        name = raw[0].isupper() and token not in _OPENERS and (n > 0 or not common_word(token))
        slot = name or any(ch.isdigit() for ch in raw)
        if not slot:
            out.append(token)
        elif not out or out[-1] != "_":
            out.append("_")
    words = [w for w in out if w != "_"]
    return tuple(out) if "_" in out and len(words) >= 3 else None
