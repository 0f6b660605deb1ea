"""What kind of thing a question asks for, by its question word and the noun after it: a
place ("where", "which city", "based"), a person ("who", "partner"). None for the rest."""

from __future__ import annotations

import re

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
