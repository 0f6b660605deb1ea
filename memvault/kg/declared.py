"""Values a person declares about a thing of theirs, whatever the thing: "My phone number is
555-0142", "Our wifi password is Gull-7731", "My new email is maya@kestrel.io", "They changed
my locker code to 9032", "New number: 555-0199", "My dentist is Dr. Okafor". No list of
things: the grammar says it ("my" / "our" + a short noun phrase + "is" / "to" / ":"), and
the value must look like one — a token with a digit (a number, a code, a plate), an email
address, or a capitalised name — so opinions and plans ("My problem is that…", "My plan is
to…") declare nothing.

A thing is named by its noun phrase ("phone number"); two names are of one thing when they
share the last word and one's other words are among the other's ("number" and "phone
number"; never "flight number" and "seat number", nor "work phone" and "personal phone").
A question asks about a thing when it holds every word of its name. Pure: no I/O.
"""

from __future__ import annotations

import re

from memvault.language.stem import stem

_LEAD = r"(?:new|current|updated|latest|actual|real)\s+"
_THING = r"(?P<thing>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}?)"
_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+)?"
_VALUE = (
    r"(?P<value>[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # an email address
    r"|\+?\d[\d -]{4,}\d"  # a phone number said in groups
    r"|[\w#/-]*\d[\w#/.-]*"  # a token with a digit: a code, a number, a plate
    rf"|{_TITLE}[A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*)*)"  # a name
)
_NOW = r"(?:(?:now|still|currently|officially|finally)\s+)?"
_FORMS = (
    re.compile(rf"\b(?i:my|our)\s+(?:{_LEAD})?{_THING}\s+(?:is|'s|’s)\s+{_NOW}{_VALUE}"),
    re.compile(rf"\b(?i:my|our)\s+(?:{_LEAD})?{_THING}\s+(?:has\s+)?changed\s+to\s+{_VALUE}"),
    re.compile(
        r"\b(?i:changed|switched|updated|moved|set|reset)\s+(?:my|our)\s+"
        rf"{_THING}\s+to\s+{_NOW}{_VALUE}"
    ),
    re.compile(rf"\b(?i:my|our)\s+(?:{_LEAD})?{_THING}\s*:\s*{_VALUE}"),
    re.compile(rf"^\s*(?i:new|updated|changed)\s+{_THING}\s*:\s*{_VALUE}"),
)
# words that make a noun phrase something other than a thing's name
_NOT_THING = frozenset(
    """
    a an the this that these those is are was were be been to of for in on at by with and or
    but so if as it its my your his her our their me you i one first last only own very just
    also too not no all some any each every what which who how why when where there here
    guess problem plan point question answer idea hope wish goal dream worry fear bet favorite
    favourite opinion feeling advice take
    """.split()
)
_PARTICLES = frozenset("over back up out off away down across".split())
_NOT_VALUE = frozenset(
    "I The A An My Our We It This That Today Tomorrow Yesterday Monday Tuesday Wednesday "
    "Thursday Friday Saturday Sunday".split()
)


def declared(sentence: str) -> list[tuple[str, str]]:
    """(thing, value) for each value ``sentence`` declares of a thing of the speaker's."""
    out: list[tuple[str, str]] = []
    for form in _FORMS:
        for m in form.finditer(sentence):
            words = m.group("thing").lower().split()
            while len(words) > 1 and words[-1] in _PARTICLES:  # "switched my membership over to"
                words.pop()
            thing = " ".join(words)
            value = m.group("value").rstrip(".,;:!?-")
            if any(w in _NOT_THING for w in thing.split()) or not _is_value(value):
                continue
            if (thing, value) not in out:
                out.append((thing, value))
    return out


def _is_value(value: str) -> bool:
    if not value or value in _NOT_VALUE:
        return False
    return any(ch.isdigit() for ch in value) or "@" in value or value[0].isupper()


def _words(name: str) -> list[str]:
    return [stem(w) for w in name.lower().split()]


def same_thing(a: str, b: str) -> bool:
    """One thing named twice: the same last word, and one's other words among the other's."""
    x, y = _words(a), _words(b)
    if not x or not y or x[-1] != y[-1]:
        return False
    short, long = sorted((set(x[:-1]), set(y[:-1])), key=len)
    return short <= long


def head(name: str) -> str:
    words = _words(name)
    return words[-1] if words else ""


def asked_in(name: str, question_stems: set[str]) -> bool:
    """Does a question (its word stems) ask about the thing ``name``: every word of it."""
    words = _words(name)
    return bool(words) and set(words) <= question_stems
