"""A turn that only asks: "Cool! What type of music do you play?", "Wow, Caroline! Did you
see that band?". It tells nothing about anyone, yet it shares the words of the topic, so it
sits beside the turns that answer. Recall's ``asks`` cut reads it (memvault.recall.fusion).

Grammar only (closed-class words, English): every sentence is a question that opens with an
interrogative or an auxiliary ("what", "did", "can", "is"), or a short exclamation or address
of at most three words that tells nothing of the speaker ("Wow!", "Thanks, Tim!"; not "I
love it!"); at least one is a question. A question that names something other than the
people talking ("Can you recommend a vet for my dog Max?", "Is 3 pm on Friday OK?") or says
a number ("What goes well with a lasagne for twelve guests?") may carry a fact and does not
count; neither does one that opens with a statement ("I moved to Lisbon, any tips?"), nor
one that says "my" or "our": what a speaker calls theirs is told in passing ("Is it normal
for my six-month-old to wake every two hours?" says there is a baby), while "I" in a
question is only its frame ("Should I go?").
"""

from __future__ import annotations

import re
from collections.abc import Collection

from memvault.language.claims import AMOUNT_WORDS
from memvault.language.text import sentences

_OPENERS = frozenset(
    """
    what who whom whose where when why how which do does did is are was were am have has had
    can could would will should shall may might must isn't aren't wasn't weren't don't doesn't
    didn't haven't hasn't won't wouldn't can't couldn't shouldn't any anything anyone
    """.split()
)
_TELLERS = frozenset("i i'm i've i'd i'll i’m i’ve we we're we’ve my our me us".split())
_THEIRS = frozenset({"my", "our", "mine", "ours"})  # said in a question, these tell what is theirs
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*|\d")
_SELF = frozenset({"I", "I'm", "I've", "I'd", "I'll", "I’m", "I’ve", "I’d", "I’ll"})
_MOST_CHARS = 600  # a long turn is more than a question


def asks_only(text: str, speakers: Collection[str] = ()) -> bool:
    """True when every sentence of ``text`` asks (or is a short exclamation) and at least one
    asks, and it names nothing but ``speakers`` (lower-cased names: an address is no fact)."""
    if len(text) > _MOST_CHARS or "?" not in text:
        return False
    asked = False
    for sentence in (s.strip() for s in sentences(text)):
        words = _WORD.findall(sentence)
        if not words:
            continue
        if _names_something(words, speakers) or _THEIRS & {w.lower() for w in words}:
            return False
        first = re.sub(r"['’]s$", "", words[0].lower())  # "what's"
        if sentence.endswith("?") and first in _OPENERS:
            asked = True
        elif sentence.endswith("?") or len(words) > 3 or first in _TELLERS:
            return False  # a statement ("I love it!"), or a question that opens with one
    return asked


def _names_something(words: list[str], speakers: Collection[str]) -> bool:
    """A digit or a number word of two or more (a number is a claim, memvault.language.claims),
    or a capitalised word past the sentence's first that is neither "I" nor one of the people
    talking."""
    for n, w in enumerate(words):
        if w.isdigit() or w.lower() in AMOUNT_WORDS:
            return True
        if n > 0 and w[0].isupper() and w not in _SELF and w.lower() not in speakers:
            return True
    return False


_SUPPOSED = re.compile(r"\b(?:if|unless|whether|wish|wished|suppose|imagine)\b", re.IGNORECASE)
_ENDS = ".!?\n"
# a question that only asks whether the listener knows what follows tells it
_TELLING = re.compile(
    r"\b(?:know|tell|told|mention|mentioned|say|said|hear|heard)\s+(?:you\s+)?(?:that\s+)?$",
    re.IGNORECASE,
)


def asserted(text: str, at: int) -> bool:
    """Whether the words at ``at`` are said as so, not asked or supposed: their clause does
    not end with a question mark ("Do I live in Leeds?"; "I live in Porto, do you?" says it)
    and nothing before them in their sentence supposes ("If I moved to Paris, …", "I wish I
    lived in Paris")."""
    start = max(text.rfind(c, 0, at) for c in _ENDS) + 1
    ends = [i for i in (text.find(c, at) for c in _ENDS) if i >= 0]
    end = min(ends) if ends else len(text)
    told = _TELLING.search(text, start, at)  # "Did I tell you I moved to Oslo?" says it
    if end < len(text) and text[end] == "?" and not re.search(r"[,;–—]", text[at:end]):
        return bool(told)  # a question, not a statement with a question after it ("…, do you?")
    return not _SUPPOSED.search(text, start, at)
