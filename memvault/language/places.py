"""A turn that names a place: a name after a preposition of place ("Signed the lease in Ealing
today.", "we moved to Porto", "the café near Alfama"), not a time ("in March", "on
Friday"). A question asking where (memvault.language.asked.asked_kind) is answered by such a
turn, which may share no word with it. Grammar only (English prepositions, capitals): the
names themselves are not looked up."""

from __future__ import annotations

import re

from memvault.language.when import MONTHS_AND_DAYS

_FRAME = re.compile(
    r"\b(?:in|at|near|from|to|outside|around|across)\s+(?:the\s+)?"
    r"([A-Z][A-Za-z'’-]+)"
)


def names_a_place(text: str) -> bool:
    """Whether ``text`` says a capitalised name after a preposition of place, other than a
    month or a day."""
    return any(m.group(1).lower() not in MONTHS_AND_DAYS for m in _FRAME.finditer(text))
