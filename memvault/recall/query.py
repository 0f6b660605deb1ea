"""What recall reads out of a query: keyword terms and candidate entity names. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from memvault.language.spelling import with_other_spellings
from memvault.language.words import STOPWORDS, plain_words, tokens

__all__ = [
    "STOPWORDS",
    "keyword_terms",
    "longest_run",
    "name_candidates",
    "phrase_windows",
    "plain_words",
    "quotations",
    "tokens",
    "vector_text",
]


def keyword_terms(text: str, *, limit: int = 32) -> list[str]:
    """Distinct content words of the query, in order, each followed by its other spelling
    (British / American) where it has one; stop words dropped unless nothing else is left (a
    query of only stop words still searches)."""
    words = [t for t in tokens(text) if t]
    # a one-character word says little, except a digit ("bug #3" is not "bug #7")
    content = [w for w in words if w not in STOPWORDS and (len(w) > 1 or w.isdigit())]
    chosen = content or words
    words = list(dict.fromkeys(w.removesuffix("'s").removesuffix("’s") for w in chosen))
    return with_other_spellings(words)[:limit]


_QUOTES = re.compile(r'"([^"\n]{1,400})"|“([^”\n]{1,400})”')


def quotations(text: str, size: int) -> list[list[str]]:
    """The words of each span the query puts in double quotation marks, of at least ``size``
    words: a user quoting a memory means every word of it, stop words too ("You once wrote
    "help you do that. At the"")."""
    if size <= 0:
        return []
    spans = (plain_words(m.group(1) or m.group(2)) for m in _QUOTES.finditer(text))
    return [words for words in spans if len(words) >= size]


def phrase_windows(text: str, size: int, *, limit: int = 16) -> list[str]:
    """Every run of ``size`` consecutive words of the query with at least two that are not
    stop words, and every run of a quotation's words: what a memory quoted by the query
    would hold verbatim (a quotation's first)."""
    if size <= 0:
        return []
    words = plain_words(text)
    quoted = [
        " ".join(q[i : i + size]) for q in quotations(text, size) for i in range(len(q) - size + 1)
    ]
    out = [
        " ".join(words[i : i + size])
        for i in range(len(words) - size + 1)
        if sum(w not in STOPWORDS for w in words[i : i + size]) >= 2
    ]
    return list(dict.fromkeys(quoted + out))[:limit]


def longest_run(query: Sequence[str], text: str, quoted: Sequence[Sequence[str]] = ()) -> int:
    """Length of the longest run of consecutive query words found verbatim in ``text`` that
    holds at least two words that are not stop words, or of a whole quotation of the query's
    (``quotations``) found there (0 when none is)."""
    t = plain_words(text)
    padded = f" {' '.join(t)} " if quoted else ""
    best = max((len(q) for q in quoted if f" {' '.join(q)} " in padded), default=0)
    where: dict[str, list[int]] = {}
    for j, w in enumerate(query):
        where.setdefault(w, []).append(j)
    for i, w in enumerate(t):
        for j in where.get(w, ()):
            if i and j and t[i - 1] == query[j - 1]:
                continue  # inside a run counted from its start
            n = 0
            while i + n < len(t) and j + n < len(query) and t[i + n] == query[j + n]:
                n += 1
            if n > best and sum(x not in STOPWORDS for x in query[j : j + n]) >= 2:
                best = n
    return best


def name_candidates(text: str, *, max_words: int = 4) -> list[str]:
    """Every run of up to ``max_words`` words: what an entity name in the query could be."""
    words = [w for w in (t.removesuffix("'s").removesuffix("’s") for t in tokens(text)) if w]
    out: list[str] = []
    for n in range(1, max_words + 1):
        for i in range(len(words) - n + 1):
            gram = words[i : i + n]
            if n == 1 and (gram[0] in STOPWORDS or len(gram[0]) < 2):
                continue
            out.append(" ".join(gram))
    return list(dict.fromkeys(out))


def vector_text(query: str, speakers: Iterable[str]) -> str:
    """The query as the dense channel reads it: without the names of the namespace's
    speakers, as every episode's vector is computed without its speaker
    (docs/decisions/0009, 0010). A name in the query vector pulls it toward the turns that
    say the name (greetings: "Hey Caroline!") rather than those by that person; who is
    asked about counts through the keyword index and the actor signal. A full name also
    goes by its first word; a name that is also a stop word ("Will") stays, as it would
    take the grammar out of every question; a query of nothing but names is kept whole."""
    names: set[str] = set()
    for speaker in speakers:
        words = speaker.split()
        if words:
            names.add(" ".join(words))
            if len(words) > 1 and len(words[0]) > 2:
                names.add(words[0])
    names = {n for n in names if n.lower() not in STOPWORDS}
    if not names:
        return query
    pattern = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    out = re.sub(rf"(?<![\w'’-])(?:{pattern})(?:'s|’s)?(?![\w'’-])", " ", query, flags=re.I)
    out = " ".join(out.split())
    return out if re.search(r"\w", out) else query
