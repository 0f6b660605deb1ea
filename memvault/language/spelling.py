"""British and American spellings meet: "favourite" in a turn is found by "favorite" in a
question, and the other way round (issue 35).

The pairs come from breame's dictionary of words with dual spellings (about 1,700 each way:
colour/color, programme/program, travelled/traveled, organise/organize), a maintained list
rather than suffix rules of our own, which also catch words that only look like variants
("hour", "four"). Recall adds a query word's other spelling as one more keyword alternative,
so memories written before this existed are found too (the keyword index is not rewritten).
Imported on first use.
"""

from __future__ import annotations

from functools import cache


@cache
def _pairs() -> dict[str, str]:
    from breame.data.spelling_constants import (
        AMERICAN_ENGLISH_SPELLINGS,
        BRITISH_ENGLISH_SPELLINGS,
    )

    both = dict(AMERICAN_ENGLISH_SPELLINGS)  # American → British
    both.update(BRITISH_ENGLISH_SPELLINGS)  # British → American
    return {a: b for a, b in both.items() if a != b and " " not in a + b}


def other_spelling(word: str) -> str | None:
    """The word's spelling on the other side of the Atlantic, in lower case; None when it
    has only one."""
    return _pairs().get(word.lower())


def with_other_spellings(words: list[str]) -> list[str]:
    """``words`` in order, each followed by its other spelling where it has one; distinct."""
    out: dict[str, None] = {}
    for w in words:
        out[w] = None
        other = other_spelling(w)
        if other:
            out[other] = None
    return list(out)
