"""What a question asks for, by its question word and the noun after it: a place ("where",
"which city", "based"), a person ("who", "partner"), or many things at once ("how many", a
plural noun after "what" or "which"), a count ("how many", "how often"), an amount ("how
old", "how many people"), or the time between two moments ("how many days between … and
…"). Grammar, not a list of topics."""

from __future__ import annotations

import re

from memvault.language.lexicon import common_word

_PLACE = re.compile(
    r"\b(?:where|(?:which|what)\s+(?:city|town|country|place|neighbou?rhood|village))\b",
    re.IGNORECASE,
)
_PERSON = re.compile(
    r"\b(?:who(?!\s+(?:does|do|did)\s+\w+\s+work\b)|whom|whose)\b|"
    r"\b(?:partner|girlfriend|boyfriend|husband|wife|spouse|manager|boss)\b",
    re.IGNORECASE,
)


def asked_kind(question: str) -> str | None:
    """``place``, ``person`` or None."""
    if _PLACE.search(question):
        return "place"
    if _PERSON.search(question):
        return "person"
    return None


# the words that end the phrase a question word opens ("What books | does Lea read?"): an
# auxiliary, or a pronoun that starts the clause ("Which neighbourhood | am I in?")
_VERB = frozenset(
    "do does did is are was were am has have had will would can could should may might "
    "i you he she it we they".split()
)


_IRREGULAR = frozenset("people children men women feet teeth mice geese".split())


def _plural(word: str) -> bool:
    """A plural noun: an irregular one, or an "-s" word whose singular is an ordinary
    English word."""
    if word in _IRREGULAR:
        return True
    if len(word) < 4 or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return False
    singular = word[:-3] + "y" if word.endswith("ies") else word[:-1]
    return common_word(singular) and singular != word


def asks_to_count(question: str) -> bool:
    """The question asks how many or how often ("How many salsa classes have I been to?"):
    every memory that says the thing counts, so memories alike in its words are its answer,
    not noise."""
    return re.search(r"\bhow\s+(?:many|often)\b", question, re.IGNORECASE) is not None


_AMOUNT = re.compile(r"\bhow\s+(?:many|much|old|long|far|big|tall)\b|\bwhat\s+age\b", re.I)
_OCCURRENCES = re.compile(r"\bhow\s+many\s+times\b|\bhow\s+often\b|\bin\s+total\b", re.I)
# a length of time ("how long", "how many days") between two moments: "between … and …",
# "from … until / till / to …", "after" or "before" one of them
_DURATION = re.compile(r"\bhow\s+(?:long|many\s+(?:minutes|hours|days|weeks|months|years))\b", re.I)
_TWO_MOMENTS = re.compile(
    r"\bbetween\b.+\band\b|\bfrom\b.+\b(?:until|till|to)\b|\b(?:after|before)\b", re.I
)


def asks_time_between(question: str) -> bool:
    """The question asks how much time passed between two moments ("How many days passed
    between painting the nursery and renewing my passport?", "How long did they date before
    moving in together?"): its answer is reckoned from when each happened, which the turns
    telling of them carry as their time, not a number any of them says."""
    return _DURATION.search(question) is not None and _TWO_MOMENTS.search(question) is not None


# two things a question weighs against each other: "…, A or B?" / "…: A or B?", "between A
# and B", "from A until / till / to B"
_EITHER = re.compile(r"[,:;]\s*(?P<a>[^,:;?]+?)\s+or\s+(?P<b>[^,:;?]+?)\s*\?*\s*$", re.I)
# the two ends of a length of time: what follows "between" or "from", split at a word that
# joins them ("and"; "until" / "till" before "to", which also sits inside a thing: "presenting
# the numbers to the directors")
_ENDS = (
    (re.compile(r"\bbetween\s+(?P<span>[^?]+)", re.I), (("and",),)),
    (re.compile(r"\bfrom\s+(?P<span>[^?]+)", re.I), (("until", "till"), ("to",))),
)
_MOST_WORDS = 6  # a thing named in a choice is a phrase, not a clause
_WH = frozenset("what which who whom whose where when why how".split())


def two_things(question: str) -> list[str]:
    """The two things a question asks about together: a choice after a comma or a colon
    ("Which did I do first, the race or the homemade bread?"; each a phrase of at most six
    words), or the two ends of a length of time asked for (:func:`asks_time_between`: "How
    many days passed between A and B?", "How long was it from A until B?"). Each is answered
    by its own memories, which may share no word with the other's. Empty when it names no
    such pair ("a trip from Toronto to Vancouver", "a talk between John and Tim")."""
    m = _EITHER.search(question)
    if m:
        a, b = (m.group(g).strip(" .!?\"'") for g in ("a", "b"))
        words = a.lower().split()
        if a and b and words[0] not in _WH and max(len(words), len(b.split())) <= _MOST_WORDS:
            return [a, b]
    if not asks_time_between(question):
        return []
    for pattern, joiners in _ENDS:
        m = pattern.search(question)
        if m:
            for words in joiners:
                if ends := _two_ends(m.group("span").strip(" .!?\"'"), words):
                    return ends
    return []


def _two_ends(span: str, joiners: tuple[str, ...]) -> list[str]:
    """``span`` split at one of ``joiners`` into two non-empty things: where both halves
    open alike (each with a word in "-ing": "from moving to Berlin to starting my job"),
    else at the first. Empty when no joiner splits it."""
    words = span.split()
    cuts = [i for i, w in enumerate(words) if 0 < i < len(words) - 1 and w.lower() in joiners]
    if not cuts:
        return []
    alike = [i for i in cuts if _gerund(words[0]) and _gerund(words[i + 1])]
    i = (alike or cuts)[0]
    return [" ".join(words[:i]), " ".join(words[i + 1 :])]


def _gerund(word: str) -> bool:
    return len(word) > 4 and word.lower().endswith("ing")


def asks_amount(question: str) -> bool:
    """The question asks for an amount that a memory states ("How many people am I cooking
    for?", "How old is Jolene?", "How much does James pay per class?", "How long has she been
    painting?"), whose answer is a number said once; not one that counts occurrences ("how
    many times", "how often", "in total"), whose answer is how many memories tell of it, nor
    the time between two moments (:func:`asks_time_between`)."""
    return (
        _AMOUNT.search(question) is not None
        and _OCCURRENCES.search(question) is None
        and not asks_time_between(question)
    )


def asks_for_many(question: str) -> bool:
    """The question asks for several things, which stand side by side: "how many", "what are
    / were", or a plural noun in the phrase its first "what" / "which" opens ("What events
    has Caroline been to?", "In what ways..."). A newer one of them replaces none of the
    others."""
    words = re.findall(r"[a-z]+", question.lower().replace("'s", ""))
    for i, word in enumerate(words):
        if word == "how" and words[i + 1 : i + 2] == ["many"]:
            return True
        if word in ("what", "which"):
            if words[i + 1 : i + 2] in (["are"], ["were"]):
                return True
            phrase = []
            for w in words[i + 1 :]:
                if w in _VERB:
                    break
                phrase.append(w)
            return any(_plural(w) for w in phrase)
    return False
