"""Currency from episode-level updates: statements a newer statement of the same speaker
replaced (the dream's links, memvault.dream.updates) rank below what replaced them, for
questions about the attribute that changed.

- **Linked** (the dream judged it): an episode whose ``replaced_by`` holds a link dated at or
  before the time recall looks from, for an attribute the query asks about, is demoted
  (``outdated_factor``); the end of its chain (the statement still current then) is lifted
  (``current_factor``) and joins the candidates when the search did not find it.
- **Provisional** (no dream has judged it yet): among the leading candidates, the rules'
  chains over statements written since the last dream; an older statement of the asked
  attribute with another value is demoted (``contested_factor``), labelled provisional.

- **History** ("where did she work before Orchard Health?", "where did I live before?"): the
  statement the named value replaced (with no value named: the one the current value
  replaced), from the dream's links or, for statements it has not judged, the rules' chains,
  is lifted (``current_factor``) and may take the relevance of the statement that replaced it:
  the question's words find the newer statement, not the one it asks for.

Nothing is hidden. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from memvault.kg.model import Episode, Replacement, episode_order
from memvault.kg.update_questions import among, asked_attributes, declared_names
from memvault.kg.updates import Link, Said, chains, statements
from memvault.language.person import is_assistant
from memvault.recall.currency import Verdict, is_history_question

_CHAIN_LIMIT = 20


@dataclass
class Factors:
    outdated: float
    current: float
    contested: float


@dataclass
class EpisodeCurrency:
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    # a statement → the statements whose relevance it may take: the end of each chain
    # (current at the time) → those it replaced; for a history question, the answer → the
    # statement that replaced it
    inherits: dict[str, list[str]] = field(default_factory=dict)
    # the newest statement of the asked attribute, per speaker: what answers the question
    answers: set[str] = field(default_factory=set)


def _short(text: str, n: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def links_at(e: Episode, at: datetime, asked: set[str]) -> list[Replacement]:
    return [r for r in e.replaced_by if r.at <= at and among(r.attribute, asked)]


def replacer_ids(episodes: Sequence[Episode], at: datetime, query: str) -> set[str]:
    """The episodes the links of ``episodes`` point at (to load before :func:`assess`)."""
    if is_history_question(query):
        return set()
    attrs = [r.attribute for e in episodes for r in e.replaced_by]
    asked = asked_attributes(query, attrs, declared_names(e.content for e in episodes))
    return {r.episode_id for e in episodes for r in links_at(e, at, asked)}


def _end(first: Replacement, lookup: Mapping[str, Episode], at: datetime) -> Episode | None:
    """Follow the chain of one attribute to the statement current at ``at``."""
    current = lookup.get(first.episode_id)
    for _ in range(_CHAIN_LIMIT):
        if current is None or current.expired_at is not None:
            return None
        nxt = [r for r in current.replaced_by if r.attribute == first.attribute and r.at <= at]
        if not nxt:
            return current
        current = lookup.get(nxt[0].episode_id)
    return current


def assess(
    episodes: Sequence[Episode],
    lookup: Mapping[str, Episode],
    at: datetime,
    *,
    query: str,
    judged_until: Callable[[], datetime | None],
    factors: Factors,
) -> EpisodeCurrency:
    """``episodes``: the leading candidates; ``lookup``: every episode loaded (with the
    replacers); ``judged_until``: when the last dream ran (episodes written later are judged
    provisionally by the rules; asked only when a provisional link is found)."""
    out = EpisodeCurrency()
    attrs = [r.attribute for e in episodes for r in e.replaced_by]
    asked = asked_attributes(query, attrs, declared_names(e.content for e in episodes))
    if not asked:
        return out
    if is_history_question(query):
        return _history(episodes, at, asked, query, judged_until, factors.current)
    for e in episodes:
        for r in links_at(e, at, asked):
            end = _end(r, lookup, at)
            what = f"'{_short(end.content)}'" if end is not None else r.episode_id
            out.verdicts[e.id] = Verdict(
                factors.outdated,
                f"replaced on {r.at.date().isoformat()}: {e.speaker}'s {r.attribute} is now "
                f"{what} (episode-level update, the dream's link)",
            )
            if end is not None and end.id != e.id:
                out.inherits.setdefault(end.id, []).append(e.id)
                out.verdicts.setdefault(
                    end.id,
                    Verdict(
                        factors.current, f"states what is current: replaced '{_short(e.content)}'"
                    ),
                )
    found = [
        link
        for link in _unjudged_links(episodes, at, asked, judged_until)
        if link.old.id not in out.verdicts
    ]
    following = {(link.old.id, link.attribute): link.new for link in found}
    for link in found:
        out.verdicts[link.old.id] = Verdict(
            factors.contested,
            f"provisional: {link.new.speaker}'s newer statement on {link.attribute} "
            f"('{_short(link.new.text)}', {link.new.at.date().isoformat()}), pending the "
            "dream's verdict",
        )
    for link in found:
        newest = link.new
        for _ in range(_CHAIN_LIMIT):
            nxt = following.get((newest.id, link.attribute))
            if nxt is None:
                break
            newest = nxt
        if newest.id not in out.verdicts or out.verdicts[newest.id].factor >= 1.0:
            out.inherits.setdefault(newest.id, []).append(link.old.id)
            out.verdicts[newest.id] = Verdict(
                factors.current,
                f"provisional: the newest statement on {link.attribute} (pending the dream)",
            )
    for e, attribute in _newest_statements(episodes, at, asked, query):
        had = out.verdicts.get(e.id)
        if had is not None and had.factor < 1.0:
            continue
        out.answers.add(e.id)
        if had is None:
            out.verdicts[e.id] = Verdict(
                factors.current,
                f"answers the question: {e.speaker}'s newest statement on {attribute} "
                f"({e.occurred_at.date().isoformat()})",
            )
    return out


def _newest_statements(
    episodes: Sequence[Episode], at: datetime, asked: set[str], query: str
) -> list[tuple[Episode, str]]:
    """Per speaker (those the question names, if it names any) and asked attribute, the
    newest statement of it by the time recall looks from, unless a dream's link says it
    was replaced (the end of its chain answers instead)."""
    said = [
        e for e in episodes if e.speaker and not is_assistant(e.speaker) and e.occurred_at <= at
    ]
    named = {(e.speaker or "").lower() for e in said if _named(e.speaker or "", query)}
    newest: dict[tuple[str, str], Episode] = {}
    for e in said:
        speaker = (e.speaker or "").lower()
        if named and speaker not in named:
            continue
        for attribute in {st.attribute for st in statements(e.content)
                          if among(st.attribute, asked)}:  # fmt: skip
            key = (speaker, attribute)
            if key not in newest or episode_order(e) > episode_order(newest[key]):
                newest[key] = e
    return [
        (e, attribute) for (_, attribute), e in newest.items() if not links_at(e, at, {attribute})
    ]


def _unjudged_links(
    episodes: Sequence[Episode],
    at: datetime,
    asked: set[str],
    judged_until: Callable[[], datetime | None],
) -> list[Link]:
    """The rules' links among ``episodes`` for the asked attributes, except those between
    statements a dream has already seen (its verdict, a link or none, stands)."""
    said = [
        Said(id=e.id, speaker=e.speaker or "", at=e.occurred_at, text=e.content)
        for e in episodes
        if e.speaker and not is_assistant(e.speaker) and e.occurred_at <= at
    ]
    found = [link for link in chains(said) if among(link.attribute, asked)]
    until = judged_until() if found else None
    created = {e.id: e.created_at for e in episodes}
    return [link for link in found if until is None or created[link.new.id] > until]


def _named(value: str, query: str) -> bool:
    value = " ".join(value.lower().split())
    return bool(value) and re.search(rf"\b{re.escape(value)}\b", query.lower()) is not None


class _Change(NamedTuple):
    old: str  # episode ids
    new: str
    attribute: str
    before: str
    after: str


def _history(
    episodes: Sequence[Episode],
    at: datetime,
    asked: set[str],
    query: str,
    judged_until: Callable[[], datetime | None],
    factor: float,
) -> EpisodeCurrency:
    """The statements that held the value before the one the question names (none named:
    before the value current at ``at``), for a speaker the question names if it names one."""
    out = EpisodeCurrency()
    changes = [
        _Change(e.id, r.episode_id, r.attribute, r.before, r.after)
        for e in episodes
        for r in links_at(e, at, asked)
    ]
    changes += [
        _Change(link.old.id, link.new.id, link.attribute, link.before, link.after)
        for link in _unjudged_links(episodes, at, asked, judged_until)
    ]
    by_id = {e.id: e for e in episodes}
    named = {e.speaker.lower() for e in episodes if e.speaker and _named(e.speaker, query)}
    if named:
        changes = [c for c in changes if (by_id[c.old].speaker or "").lower() in named]
    pivots = [c for c in changes if _named(c.after, query)]
    if not pivots:  # "where did I live before?": before the value current now
        replaced = {(c.old, c.attribute) for c in changes}
        pivots = [c for c in changes if (c.new, c.attribute) not in replaced]
    for c in pivots:
        out.verdicts[c.old] = Verdict(
            factor,
            f"answers a question about the past: {by_id[c.old].speaker}'s {c.attribute} was "
            f"'{c.before}' before '{c.after}'",
        )
        out.inherits.setdefault(c.old, []).append(c.new)
    return out
