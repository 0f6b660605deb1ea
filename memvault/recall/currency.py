"""Currency: at the time recall looks from (``now``, or ``as_of``), what the vault knows was
replaced ranks below what replaced it, and a fact that answers the question comes first.

The facts of one subject and predicate fall, at that time, into:

- **current**: valid then;
- **replaced**: ended (``invalid_at`` ≤ then) while another fact of the same subject and
  predicate is current (the dream superseded it, or a user ended it);
- **contested** (provisional): a single-valued predicate with two or more current values
  before any dream judged them; the newest (``valid_at``) is taken as current, the older
  ones are contested until the dream's verdict.

Only facts whose predicate the query asks about count ("where does she live" asks about
``lives_in``): supersession orders memories about the same thing and buries nothing about
other things. Among those, a memory that is evidence (a source episode) of a replaced or
contested fact, and of no current one, is demoted; the evidence of a current fact that
replaced another is lifted. A current fact whose subject the query names answers it and
ranks first. History questions ("before", "used to", "previously") keep every statement as
it is. Nothing is hidden: a demotion is a factor, explained on the hit.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from memvault.kg.model import Fact, fact_order, normalize_name
from memvault.kg.temporal_conflict import opposite_groups
from memvault.kg.update_questions import asking_words
from memvault.language.stem import stem

_HISTORY = re.compile(
    r"\b(before|used to|previous(ly)?|former(ly)?|originally|at first|earlier|"
    r"in the past|history|old|ex|anymore|no longer|change[sd]?|switch(ed)?|moved from|"
    r"prior|until|back then|when did)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z]+")
_STOP = {"in", "at", "of", "to", "the", "a", "an", "is", "has", "have", "with", "for", "on"}


def is_history_question(query: str) -> bool:
    return bool(_HISTORY.search(query))


def stems(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP}


@dataclass
class Verdict:
    factor: float
    why: str


@dataclass
class Assessment:
    facts: dict[str, Verdict] = field(default_factory=dict)
    episodes: dict[str, Verdict] = field(default_factory=dict)
    answers: list[Fact] = field(default_factory=list)
    # episodes that answer it: the newest statement of the asked attribute (episode_updates)
    episode_answers: set[str] = field(default_factory=set)
    # the newest of statements meaning the same thing → the others (memvault.recall.groups)
    newest: dict[str, list[str]] = field(default_factory=dict)
    # a question about a past time (memvault.language.when.looked_back): the groups are
    # ordered as of then, not as of the question's own time
    then: datetime | None = None

    def seen_from(self, then: datetime) -> None:
        """Judged as of ``then`` (a question about a past time): each verdict says so, so
        "the newest statement" is never read as the newest one now."""
        self.then = then
        said = f" (as of {_day(then)}, the time asked about)"
        for verdicts in (self.facts, self.episodes):
            for key, v in verdicts.items():
                verdicts[key] = Verdict(v.factor, v.why + said)


def _day(t: datetime) -> str:
    return t.date().isoformat()


def _older_values(current: list[Fact]) -> list[Fact]:
    """Of the current values (sorted by ``valid_at``), those older than the newest: values
    stated at the same time coexist (nothing is newer)."""
    return [f for f in current[:-1] if f.valid_at < current[-1].valid_at]


def contested(
    facts: Iterable[Fact],
    at: datetime,
    single_valued: Callable[[str], bool],
    opposites: frozenset[frozenset[str]] = frozenset(),
) -> dict[str, Fact]:
    """Older values of single-valued predicates still current at ``at`` (no dream has judged
    them yet), and older facts a newer opposite one about the same object contests → the
    newer fact that contests each."""
    facts = list(facts)
    groups: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for f in facts:
        if f.is_valid_at(at) and single_valued(f.predicate):
            groups[(f.subject_id, f.predicate)].append(f)
    out: dict[str, Fact] = {}
    for members in groups.values():
        current = sorted(members, key=fact_order)
        out.update({f.id: current[-1] for f in _older_values(current)})
    out.update({f.id: newer for f, newer in _opposed([facts], at, opposites, None)})
    return out


def _replaced(
    members: list[Fact], current: list[Fact], at: datetime, single: bool
) -> Iterator[tuple[Fact, str, Fact | None]]:
    """(fact, "ended" | "contested", what replaced it): facts ended by then, with the value
    that started when they ended (a SUPERSEDE sets ``invalid_at`` to the new ``valid_at``);
    and, for a single-valued predicate, older values still current (no verdict yet)."""
    starts = {f.valid_at: f for f in sorted(members, key=lambda f: f.created_at)}
    for f in members:
        if f.invalid_at is not None and f.invalid_at <= at:
            yield f, "ended", starts.get(f.invalid_at)
    if single:
        for f in _older_values(current):
            yield f, "contested", current[-1]


def _opposed(
    groups: Iterable[list[Fact]],
    at: datetime,
    opposites: frozenset[frozenset[str]],
    asked: set[str] | None,
) -> list[tuple[Fact, Fact]]:
    """Facts still current at ``at`` that a newer current fact of the opposite predicate
    about the same object contests ("likes Thai food", then "dislikes Thai food"), each with
    the newer one; ``asked`` (word stems): only where the question asks about either
    predicate (None: wherever)."""
    out: list[tuple[Fact, Fact]] = []
    current = [f for members in groups for f in members if f.is_valid_at(at)]
    for pair in opposites:
        if asked is not None and not asked & {s for p in pair for s in stems(p.replace("_", " "))}:
            continue
        for members in opposite_groups(current, pair):
            newest = members[-1]
            for f in members:
                if f.predicate != newest.predicate and f.valid_at < newest.valid_at:
                    out.append((f, newest))
    return out


def _why(f: Fact, how: str, replacer: Fact | None, at: datetime) -> str:
    if how == "contested" and replacer is not None:
        return (
            f"contested by the newer '{replacer.statement}' from {_day(replacer.valid_at)} "
            "(provisional, pending the dream's verdict)"
        )
    ended = _day(f.invalid_at or at)
    if replacer is None:
        return f"no longer true since {ended}"
    return f"superseded on {ended} by '{replacer.statement}'"


def assess(
    facts: Iterable[Fact],
    at: datetime,
    *,
    query: str,
    named: set[str],
    single_valued: Callable[[str], bool],
    outdated_factor: float,
    current_factor: float,
    contested_factor: float,
    answer_factor: float,
    opposites: frozenset[frozenset[str]] = frozenset(),
) -> Assessment:
    """Verdicts on facts and their evidence at ``at``. ``named``: normalised names the query
    mentions (a fact answers only about a subject the query names). ``opposites``:
    predicate pairs that contradict about one object; the older of two still current is
    contested by the newer (before a dream settles it)."""
    out = Assessment()
    groups: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for f in facts:
        if f.expired_at is None and f.valid_at <= at:
            groups[(f.subject_id, f.predicate)].append(f)
    history = is_history_question(query)
    asked = stems(asking_words(query))
    lifted: set[str] = set()
    demoted: dict[str, Verdict] = {}
    for (_, predicate), members in groups.items():
        current = sorted((f for f in members if f.is_valid_at(at)), key=fact_order)
        if not current:
            continue
        if not asked & stems(predicate.replace("_", " ")):
            continue  # order memories about what was asked; bury nothing about other things
        newest = current[-1]
        if not history:
            for f, how, replacer in _replaced(members, current, at, single_valued(predicate)):
                demoted[f.id] = Verdict(
                    outdated_factor if how == "ended" else contested_factor,
                    _why(f, how, replacer, at),
                )
                if replacer is not None and replacer.is_valid_at(at):
                    out.facts[replacer.id] = Verdict(
                        current_factor, f"current: replaced '{f.statement}'"
                    )
                    lifted.update(replacer.source_episode_ids)
        if normalize_name(newest.subject) in named and not history:  # the past is asked
            prior = out.facts.get(newest.id)
            factor = answer_factor * (prior.factor if prior else 1.0)
            out.facts[newest.id] = Verdict(
                factor,
                f"answers the question: {newest.subject}'s {predicate} is current "
                f"(valid from {_day(newest.valid_at)})",
            )
            out.answers.append(newest)
    if not history:
        for f, newer in _opposed(groups.values(), at, opposites, asked):
            demoted.setdefault(f.id, Verdict(contested_factor, _why(f, "contested", newer, at)))
            verdict = Verdict(current_factor, f"current: contests '{f.statement}'")
            if any(a.id == f.id for a in out.answers):  # the newer answers in its place
                out.answers = [newer if a.id == f.id else a for a in out.answers]
                verdict = Verdict(
                    answer_factor * current_factor,
                    f"answers the question: contests '{f.statement}' (valid from "
                    f"{_day(newer.valid_at)})",
                )
            out.facts[newer.id] = verdict
            lifted.update(newer.source_episode_ids)
    out.facts.update(demoted)
    by_id = {f.id: f for members in groups.values() for f in members}
    for f_id, demotion in demoted.items():
        for episode_id in by_id[f_id].source_episode_ids:
            if episode_id not in lifted:
                out.episodes[episode_id] = Verdict(demotion.factor, f"states a fact {demotion.why}")
    for episode_id in lifted:
        out.episodes.setdefault(episode_id, Verdict(current_factor, "states what is current"))
    return out
