"""Currency by meaning (issue 33, decision 0013): statements about the same thing, newest
first, for a question about now.

The rules (memvault/kg/updates.py) know some wordings of a change; users say changes in many
more ("badge photo done, first standup at Copperleaf tomorrow"). This step knows none: among
the leading episode candidates, those of one speaker whose vectors are close
(``group_cosine``) say something about the same thing, and for a question about now the
newest of such a group ranks just above the best of the others. Nothing is hidden or
demoted: the older statements keep their scores (and a second pet stays in the list).
Statements that each name something other than the people talking (``naming_pairs``, from
the store's mentions) are grouped too: two answers to one "which" question (decision 0016).

A question is about now unless it asks about the past: a history cue ("before", "used to",
memvault.recall.currency), a past-tense auxiliary or a time marker ("did", "was", "ago",
"last", a year). That is grammar (closed-class words), not a list of ways to say a change.
Pure: the caller passes the vectors.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from memvault.kg.model import Episode, episode_order
from memvault.language.claims import frame
from memvault.language.words import plain_words
from memvault.recall.currency import is_history_question

PAST = frozenset(
    "did was were had used ago before previously formerly originally earlier once last first "
    "yesterday".split()
)
_YEAR = re.compile(r"\b(1[89]|20)\d\d\b")


def asks_about_now(query: str) -> bool:
    """No history cue, no past-tense auxiliary or time marker, no year."""
    if is_history_question(query) or _YEAR.search(query):
        return False
    return not (set(plain_words(query)) & PAST)


def newest_of_groups(
    episodes: Sequence[Episode],
    vectors: Mapping[str, np.ndarray],
    threshold: float,
    linkage: str = "single",
    linked: set[frozenset[str]] | None = None,
    by_link_only: set[str] | frozenset[str] = frozenset(),
) -> dict[str, list[str]]:
    """Groups of ``episodes`` (one speaker each) whose vectors are at least ``threshold``
    apart in cosine, or that ``linked`` pairs: the newest of each group → the others.
    ``single``: linked transitively; ``complete``: each member close to every other (in the
    order given, best first, an episode joins the first group it is close to all of).
    ``by_link_only``: episodes that join a group only through ``linked`` pairs, not by their
    vectors."""
    have = [e for e in episodes if e.id in vectors]
    if len(have) < 2 or threshold <= 0:
        return {}
    matrix = np.stack([vectors[e.id] for e in have]).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True) + 1e-12
    close = matrix @ matrix.T >= threshold
    at = {e.id: n for n, e in enumerate(have)}
    for i in (at[x] for x in by_link_only if x in at):
        close[i, :] = close[:, i] = False
    for a, b in (tuple(pair) for pair in linked or () if pair <= at.keys()):
        close[at[a], at[b]] = close[at[b], at[a]] = True
    if linkage == "complete":
        return _newest(have, _cliques(have, close))
    parent = list(range(len(have)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    speakers = [(e.speaker or "").lower() for e in have]
    for i in range(len(have)):
        for j in range(i + 1, len(have)):
            if close[i, j] and speakers[i] == speakers[j]:
                parent[root(i)] = root(j)
    groups: dict[int, list[Episode]] = {}
    for i, e in enumerate(have):
        groups.setdefault(root(i), []).append(e)
    return _newest(have, list(groups.values()))


def _cliques(have: Sequence[Episode], close: np.ndarray) -> list[list[Episode]]:
    speakers = [(e.speaker or "").lower() for e in have]
    groups: list[list[int]] = []
    for i in range(len(have)):
        for g in groups:
            if speakers[g[0]] == speakers[i] and all(close[i, j] for j in g):
                g.append(i)
                break
        else:
            groups.append([i])
    return [[have[i] for i in g] for g in groups]


def _newest(have: Sequence[Episode], groups: list[list[Episode]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for members in groups:
        if len(members) < 2:
            continue
        newest = max(members, key=episode_order)
        out[newest.id] = [e.id for e in members if e.id != newest.id]
    return out


def naming_pairs(ids: Sequence[str]) -> set[frozenset[str]]:
    """Every pair of ``ids``: episodes that each name something (a place, an employer, a
    person other than their speaker) give two answers to a question asking which one; for
    a question about now, the newer answer leads."""
    return {frozenset((a, b)) for n, a in enumerate(ids) for b in ids[n + 1 :]}


Said = tuple[str, tuple[str, ...]]  # who said it, and in what words but for its values


def is_question(e: Episode) -> bool:
    """A turn that asks states nothing ("Should I visit Antwerp or Ghent?"): it never stands
    for a newer version of anything."""
    return e.content.rstrip().endswith("?")


def said_in_frame(e: Episode) -> Said | None:
    """Its speaker (case aside) and its frame (memvault.language.claims.frame): two
    episodes with the same say one thing for different values. None without a frame."""
    f = frame(e.content)
    return None if f is None else ((e.speaker or "").lower(), f)


def frame_pairs(episodes: Sequence[Episode]) -> set[frozenset[str]]:
    """Pairs of ``episodes`` one speaker said in the same words but for a name or a number
    (:func:`said_in_frame`): "I've been moved under Priyanka." and, months later, "I've
    been moved under Osei." answer one question, whatever their vectors say."""
    by: dict[Said, list[Episode]] = {}
    for e in episodes:
        if (said := said_in_frame(e)) is not None:
            by.setdefault(said, []).append(e)
    return {
        frozenset((a.id, b.id))
        for members in by.values()
        for n, a in enumerate(members)
        for b in members[n + 1 :]
        if " ".join(a.content.split()) != " ".join(b.content.split())
    }
