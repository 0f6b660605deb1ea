"""One stemmer for every floor that matches words by their stem: the Snowball English
(Porter2) stemmer from PyStemmer, the algorithm the keyword index's own tokenizer follows
in spirit. live, lives, lived, living → live; married, marry → marri; manager, managing →
manag. Replaced three hand-written suffix strippers (issue 29) that disagreed with each other
and missed "marry" / "married"."""

from __future__ import annotations

from functools import cache

import Stemmer

_ENGLISH = Stemmer.Stemmer("english")


@cache
def stem(word: str) -> str:
    """The Snowball stem of one lower-cased word."""
    return str(_ENGLISH.stemWord(word))
