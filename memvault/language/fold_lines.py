"""The offline fold (memvault.folds): which lines of a digest stand and which carry the most,
by the shape of what they say (paths, commands, versions) and how rare their words are. An
English-leaning heuristic, kept on the language floor with the others."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from memvault.language.tokens import tokens
from memvault.language.words import STOPWORDS, plain_words

_LINE = re.compile(r"^- (\d{4}-\d{2}-\d{2}) (.*)$")


# What a fold must not lose (seed 001's lesson): file paths, exact commands, version strings,
# identifiers, flags and numbers. Found by their shape, not by a list of words.
DETAIL = re.compile(
    r"`[^`\n]{1,120}`"  # a quoted command or code
    r"|(?:~|\.{1,2})?/[\w.\-/]{2,}"  # a path
    r"|\b[\w\-]+\.(?:py|js|ts|tsx|md|json|ya?ml|toml|txt|cfg|ini|sh|sql|lock|go|rs|rb|java|c|h"
    r"|cpp|css|html)\b"  # a file name
    r"|\bv?\d+(?:\.\d+)+(?:[\w\-]*)"  # a version, a decimal
    r"|(?<![\w-])--?[a-zA-Z][\w\-]+"  # a flag
    r"|\b[A-Za-z]+_[\w]+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b"  # snake_case, camelCase
)
SAME = 0.7  # word overlap at which two statements are about the same thing: the newer stands
DETAIL_WEIGHT = 3.0
RECENT_SHARE = 0.25  # of the budget, for the newest statements whatever they hold
NUMBER_WEIGHT = 0.3  # a bare number: a serial or a count says little alone


def details(text: str) -> set[str]:
    return {m.group(0).strip("`").lower() for m in DETAIL.finditer(text)}


# what may change while a statement stays "the same thing": a version, a quoted command
_REVISABLE = re.compile(r"`[^`\n]{1,120}`|\bv?\d+(?:\.\d+)+(?:[\w\-]*)")


def _words(text: str) -> set[str]:
    """The words that say what a statement is about: its content words and numbers, without
    the versions and quoted commands an update revises (so "pinned numpy to 1.26.4" and
    "pinned numpy to 2.0.1" are one statement, and "garden bed 3" and "bed 5" two)."""
    return {w for w in plain_words(_REVISABLE.sub(" ", text)) if w not in STOPWORDS}


def extractive_fold(digest: str, notes: Sequence[str], budget_tokens: int) -> str:
    """The offline fold: existing lines and new note lines, one per distinct statement (the
    newest date kept); of statements about the same thing (``SAME`` of their words shared)
    the newest stands; the newest lines fill a quarter of the budget (``RECENT_SHARE``);
    then, within the rest, the lines that carry the most not yet covered (details first:
    paths, commands, versions, ``DETAIL``; rare words next) per token, so an old line with a
    version string outlives newer small talk. Newest first; within a day, in note order."""
    best: dict[str, tuple[str, int, str]] = {}
    for order, line in enumerate([*digest.splitlines(), *notes]):  # notes: oldest first
        m = _LINE.match(line.strip())
        if not m:
            continue
        day, text = m.groups()
        key = " ".join(re.findall(r"\w+", text.lower()))
        if key and (key not in best or day >= best[key][0]):
            best[key] = (day, order, text)
    newest_first = [
        (day, text)
        for day, _, text in sorted(best.values(), key=lambda x: (x[0], x[1]), reverse=True)
    ]
    # recency: of statements about the same thing, the newest stands
    # (a path or a file named differently is another statement; a version or a command
    # revised is the same one)
    standing: list[tuple[str, str, set[str], set[str]]] = []
    fixed: list[set[str]] = []
    for day, text in newest_first:
        words, pinned = _words(text), details(_REVISABLE.sub(" ", text))
        if len(words) >= 2 and any(
            len(words & w) / len(words | w) >= SAME and pinned == fixed[k]
            for k, (_, _, w, _) in enumerate(standing)
        ):
            continue
        standing.append((day, text, words, details(text)))
        fixed.append(pinned)
    # information: rare words and details not yet covered, per token of the line
    df: dict[str, int] = {}
    for _, _, words, found in standing:
        for w in words | found:
            df[w] = df.get(w, 0) + 1
    n = len(standing)

    def weight(term: str, detail: bool) -> float:
        idf = 1.0 + math.log((1 + n) / (1 + df.get(term, 0)))
        if detail:
            return idf * DETAIL_WEIGHT
        return idf * (NUMBER_WEIGHT if term.isdigit() else 1.0)

    covered: set[str] = set()
    chosen: list[int] = []
    used = 0
    left = set(range(n))
    for i in range(n):  # what is latest first, within RECENT_SHARE of the budget
        day, text, words, found = standing[i]
        cost = tokens(f"- {day} {text}") + 1
        if used + cost > budget_tokens * RECENT_SHARE:
            break
        chosen.append(i)
        left.discard(i)
        used += cost
        covered |= words | found
    while left:
        pick, score = None, 0.0
        for i in sorted(left):  # newest first: a tie keeps the newer
            day, text, words, found = standing[i]
            gain = sum(weight(t, True) for t in found - covered) + sum(
                weight(w, False) for w in words - covered - found
            )
            cost = tokens(f"- {day} {text}") + 1
            if used + cost > budget_tokens:
                continue
            if gain / cost > score:
                pick, score = i, gain / cost
        if pick is None:
            break
        left.discard(pick)
        chosen.append(pick)
        day, text, words, found = standing[pick]
        used += tokens(f"- {day} {text}") + 1
        covered |= words | found
    out = [f"- {standing[i][0]} {standing[i][1]}" for i in sorted(chosen)]
    while out and tokens("\n".join(out)) > budget_tokens:
        out.pop()
    return "\n".join(out)
