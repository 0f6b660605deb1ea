"""A newer statement in the same words, found by its words (docs/recall.md, "The same words
for another value").

Grouping by frame (memvault.recall.groups.frame_pairs) puts the newer of two statements one
speaker said in the same words but for a value first, but only among the candidates the
channels found. "Signed the lease in Ealing today." shares no word with "Where am I living
at the moment?", and its vector lies far from it, so it may be found by none while "... in
Walthamstow today." is. For a question about now, recall's fourth read also searches the
keyword index for the longest run of words of the first few leading statements' frames, as
a phrase (:func:`plan`), and keeps only later statements of the same speaker in the same
frame; :func:`join_newer` makes them candidates beside the statements of their frame.
Pure: the read is the caller's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from memvault.kg.model import Episode, episode_order
from memvault.recall.candidates import Candidates, Key
from memvault.recall.groups import Said, is_question, said_in_frame

SEARCHED = 3  # frames of leading statements the store is searched by, at most
SHORT = 280  # characters: a statement said again for another value is short; a long
# reply's frame is its own, and searching for it costs more than any other read of recall
PHRASE_WORDS = 6  # a frame's longest run is searched by its first this many words


@dataclass
class Plan:
    """The phrases to search the store by, and the latest leading statement of each frame
    as of ``at``: a match is kept when it is later than that one and said by ``at``."""

    at: datetime
    phrases: list[list[str]] = field(default_factory=list)
    latest: dict[Said, Episode] = field(default_factory=dict)

    def keeps(self, e: Episode) -> bool:
        said = None if is_question(e) else said_in_frame(e)
        last = self.latest.get(said) if said else None
        return (
            last is not None
            and episode_order(e) > episode_order(last)
            and e.expired_at is None
            and e.occurred_at <= self.at
        )


def plan(leading: Sequence[Episode], at: datetime) -> Plan:
    """The frames of the short statements among ``leading`` (best first; none for a
    question that is not about now: the caller passes none), the first ``SEARCHED`` of
    them searched by their longest run of words."""
    out = Plan(at)
    for e in leading:
        if is_question(e) or len(e.content) > SHORT or (said := said_in_frame(e)) is None:
            continue
        out.latest[said] = max(out.latest.get(said, e), e, key=episode_order)
        phrase = longest_run(said[1])
        if phrase and phrase not in out.phrases and len(out.phrases) < SEARCHED:
            out.phrases.append(phrase)
    return out


def longest_run(f: tuple[str, ...]) -> list[str]:
    """The longest run of a frame's words between its slots (its first ``PHRASE_WORDS``),
    as one phrase to search by (``["signed the lease in"]`` for "Signed the lease in Ealing
    today."): the store finds the statements that hold it verbatim, whatever else they
    share with the question. Empty when no run has two words."""
    runs = " ".join(f).split("_")
    best = max((r.split() for r in runs), key=len, default=[])[:PHRASE_WORDS]
    return [" ".join(best)] if len(best) >= 2 else []


def join_newer(c: Candidates, score: dict[Key, float], near_top: Sequence[str]) -> list[str]:
    """The statements the search kept (``c.framed``) that are in the frame of one of
    ``near_top`` and later than each of its statements there: each joins the candidates
    with their best score (it answers what they answer), to be grouped with them by frame.
    Returns their ids, oldest first."""
    best: dict[Said, tuple[float, Episode]] = {}
    for i in near_top:
        e = c.episodes[i]
        if not is_question(e) and (said := said_in_frame(e)) is not None:
            value, last = best.get(said, (0.0, e))
            value = max(value, score.get(("episode", i), 0.0))
            best[said] = (value, max(last, e, key=episode_order))
    joined: list[str] = []
    for rid, e in sorted(c.framed.items(), key=lambda item: episode_order(item[1])):
        found = best.get(said) if (said := said_in_frame(e)) is not None else None
        if rid in c.episodes or found is None or episode_order(e) <= episode_order(found[1]):
            continue
        c.episodes[rid] = e
        c.keys.setdefault(("episode", rid), None)
        score[("episode", rid)] = max(score.get(("episode", rid), 0.0), found[0])
        joined.append(rid)
    c.frame_joined.update(joined)
    return joined
