"""Words as every floor reads them: the tokens of a text, the plain letters-and-digits runs
the keyword index splits on, and the English stop words. Pure."""

from __future__ import annotations

import re
from collections import Counter

_TOKEN = re.compile(r"[\w][\w'’-]*", re.UNICODE)
_PLAIN = re.compile(r"[^\W_]+", re.UNICODE)

STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if
    in into is it its itself just me more most my myself no nor not now of off on once
    only or other our ours ourselves out over own same she should so some such than that
    the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves ever likely kind sort also get got would've
    i'm i've it's that's what's
    """.split()
)


def tokens(text: str) -> list[str]:
    """Lower-cased words (apostrophes and hyphens inside a word kept)."""
    return [t.lower().strip("'’-") for t in _TOKEN.findall(text)]


def plain_words(text: str) -> list[str]:
    """Lower-cased letters-and-digits runs, as the keyword index splits text."""
    return _PLAIN.findall(text.lower())


def _telling(word: str) -> bool:
    """A lower-case word that tells something: no stop word, and not one letter (a digit is)."""
    return word not in STOPWORDS and (len(word) > 1 or word.isdigit())


def cue_words(original: str, kept: str) -> list[str]:
    """The words of ``original`` that ``kept`` (its digest) no longer holds, each as often
    as ``original`` says it more than ``kept`` does, stop words too: sorted, so the order of
    the text is not kept. With the digest they are the original's words and counts, so the
    keyword index scores a digested memory as it scored the original, at its length and
    with each word's count (with only the distinct telling words a digest read as a short
    text, and its neighbours' digests outranked it: docs/benchmarks.md, "Never lose a
    memory"). What a digested memory keeps to be found by its own words (docs/tiers.md)."""
    left = Counter(plain_words(original)) - Counter(plain_words(kept))
    return sorted(left.elements())


# scripts written without spaces between words: each character counts as a word
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def says_little(text: str, most: int = 1) -> bool:
    """At most ``most`` words that are not stop words ("hello", "continue", "Thanks!",
    "I WIN"): too little for a text's own words or meaning to tell what it is about. One
    letter is no word, a digit is; in Chinese, Japanese or Thai each character counts. Reads
    only as far as it must: a long text answers after its first few words."""
    count = 0
    for match in _PLAIN.finditer(text):
        w = match.group().lower()
        if w.isascii():
            count += _telling(w)
        else:  # "Zürich" is one word, "引っ越しました" seven
            count += len(_UNSPACED.findall(w)) or len(w) > 1
        if count > most:
            return False
    return True
