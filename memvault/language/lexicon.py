"""Is a word an ordinary English word? The lower-case entries of Webster's Second (the
``web2`` list of the english-words package): what is written capitalised in that list is a
proper name, the rest are common words. Used where capitalisation says nothing (the first
word of a sentence): "Horses have such grace" opens with a common word, "Lena lives in
Porto" with a name. Inflections meet their base form (horses → horse, researching →
research, twisted → twist), a possessive its owner ("Family's"), a hyphenated word its parts
("Breath-taking"). Loaded on first use (0.14 s)."""

from __future__ import annotations

from functools import cache


@cache
def _web2() -> frozenset[str]:
    from english_words import get_english_words_set

    return frozenset(get_english_words_set(["web2"], lower=False))


@cache
def _common() -> frozenset[str]:
    return frozenset(w for w in _web2() if w.islower())


@cache
def _proper() -> frozenset[str]:
    return frozenset(w.lower() for w in _web2() if w[:1].isupper())


def proper_name(word: str) -> bool:
    """Webster's Second writes the word capitalised: it is (also) a proper name ("Bill",
    "Mark", "Jack"), unlike "Certainly" or "Define"."""
    return word.lower().replace("’", "'").strip("'").removesuffix("'s") in _proper()


def _bases(word: str) -> list[str]:
    out = [word]
    for suffix, repl in (("ies", "y"), ("es", ""), ("s", ""), ("ing", ""), ("ing", "e"),
                         ("ed", ""), ("ed", "e"), ("ly", "")):  # fmt: skip
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            out.append(word[: -len(suffix)] + repl)
    if word.endswith(("ing", "ed")) and len(word) > 5 and word[-4] == word[-5]:
        out.append(word[: -4 if word.endswith("ing") else -3])  # stepping → step
    return out


@cache
def common_word(word: str) -> bool:
    """The lower-cased word, or its base form, is an ordinary English word."""
    plain = word.lower().replace("’", "'").strip("'").removesuffix("'s")
    parts = [p for p in plain.replace("'", "-").split("-") if p]  # "Breath-taking", "C'mon"
    return bool(parts) and all(any(b in _common() for b in _bases(p)) for p in parts)
