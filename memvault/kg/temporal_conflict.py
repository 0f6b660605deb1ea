"""Temporal conflicts between facts, and the deterministic first judge of each.

Two live facts conflict when they share a subject and a single-valued predicate (one object
at a time: where someone lives, who their manager is) but name different objects, or when
they say opposite things (predicates the ontology declares opposite: likes / dislikes) about
the same object. Facts with the same subject, predicate and (normalised) object are
duplicates. The verdicts:

- MERGE: one fact, carrying the provenance of both (duplicates, or the same object worded
  differently);
- SUPERSEDE: the newer replaces the older from its ``valid_at``: ``old.invalid_at =
  new.valid_at``; the old fact stays, answerable "as of" a date inside its validity;
- COEXIST: both hold (e.g. two jobs at once); nothing changes.

The rules decide what the timeline settles; what it cannot settle (both stated for the same
instant) is proposed with a low confidence, so it goes to the reasoning model when one is
configured, then to human review.
Pure: no I/O.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from memvault.kg.model import Fact, fact_order, normalize_name

Decision = Literal["MERGE", "SUPERSEDE", "COEXIST"]


class Verdict(BaseModel):
    conflict_id: str
    decision: Decision
    confidence: float = Field(ge=0, le=1)
    reason: str


@dataclass(frozen=True)
class Conflict:
    old: Fact
    new: Fact
    volatile: bool = False  # the predicate's value changes often: a newer value normally wins

    @property
    def id(self) -> str:
        return f"{self.old.id}|{self.new.id}"

    def describe(self) -> dict[str, object]:
        """What a judge sees: both statements with their validity and sources."""

        def side(f: Fact) -> dict[str, object]:
            return {
                "predicate": f.predicate,
                "statement": f.statement,
                "object": f.object,
                "valid_at": f.valid_at.isoformat(),
                "invalid_at": f.invalid_at.isoformat() if f.invalid_at else None,
                "confidence": round(f.confidence, 3),
                "source_sessions": list(f.source_session_ids),
            }

        return {
            "conflict_id": self.id,
            "subject": self.new.subject,
            "predicate": self.new.predicate,
            "volatile": self.volatile,
            "old": side(self.old),
            "new": side(self.new),
        }


def duplicate_groups(facts: Iterable[Fact]) -> list[list[Fact]]:
    """Live facts with the same subject, predicate and normalised object, oldest first."""
    groups: dict[tuple[str, str, str], list[Fact]] = defaultdict(list)
    for f in facts:
        groups[f.key()].append(f)
    return [sorted(g, key=fact_order) for g in groups.values() if len(g) > 1]


def find_conflicts(
    facts: Iterable[Fact],
    single_valued: Iterable[str],
    volatile: Iterable[str] = (),
    opposites: Iterable[frozenset[str]] = (),
) -> list[Conflict]:
    """Consecutive pairs (in valid time) of live facts whose single-valued (or volatile)
    predicate names different objects for the same subject, and of live facts that say
    opposite things (``opposites``: predicate pairs) about the same object ("likes Thai
    food", then "dislikes Thai food")."""
    facts = list(facts)
    changing = set(volatile)
    single = set(single_valued) | changing
    groups: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for f in facts:
        if f.predicate in single:
            groups[(f.subject_id, f.predicate)].append(f)
    out: list[Conflict] = []
    for group in groups.values():
        ordered = sorted(group, key=fact_order)
        for old, new in itertools.pairwise(ordered):
            if normalize_name(old.object) != normalize_name(new.object):
                out.append(Conflict(old=old, new=new, volatile=new.predicate in changing))
    for pair in {p for p in opposites if len(p) == 2}:
        for ordered in opposite_groups(facts, pair):
            for old, new in itertools.pairwise(ordered):
                if old.predicate != new.predicate:
                    out.append(Conflict(old=old, new=new))
    return sorted(out, key=lambda c: (fact_order(c.new), fact_order(c.old)))


def opposite_groups(facts: Iterable[Fact], pair: frozenset[str]) -> list[list[Fact]]:
    """The facts of either predicate of ``pair`` per subject and (normalised) object, each
    group in valid-time order: where "likes Thai food" and "dislikes Thai food" meet."""
    about: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for f in facts:
        if f.predicate in pair:
            about[(f.subject_id, normalize_name(f.object))].append(f)
    return [sorted(group, key=fact_order) for group in about.values()]


def rule_verdict(conflict: Conflict) -> Verdict:
    """The timeline's answer: a later valid_at supersedes; the same instant cannot be
    settled by rules (low confidence: escalate)."""
    old, new = conflict.old, conflict.new
    if old.predicate != new.predicate:  # opposite things said about one object
        return _opposite_verdict(conflict)
    if normalize_name(old.object) == normalize_name(new.object):
        return Verdict(
            conflict_id=conflict.id,
            decision="MERGE",
            confidence=0.95,
            reason="same object",
        )
    if new.valid_at > old.valid_at:
        kind = "changes often" if conflict.volatile else "holds one value at a time"
        return Verdict(
            conflict_id=conflict.id,
            decision="SUPERSEDE",
            confidence=0.95 if conflict.volatile else 0.9,
            reason=(
                f"{new.predicate} {kind}; '{new.object}' is stated from "
                f"{new.valid_at.date()}, after '{old.object}' ({old.valid_at.date()})"
            ),
        )
    learned = "the later-learned " if new.created_at > old.created_at else ""
    return Verdict(
        conflict_id=conflict.id,
        decision="SUPERSEDE",
        confidence=0.5,
        reason=(
            "both are stated for the same time, so the timeline cannot tell which holds; "
            f"proposing {learned}'{new.object}' replaces '{old.object}': confirm or reject"
        ),
    )


def _opposite_verdict(conflict: Conflict) -> Verdict:
    """The later of two opposite statements about one object holds from when it was said;
    never a merge (that would keep one side's words for both)."""
    old, new = conflict.old, conflict.new
    if new.valid_at > old.valid_at:
        return Verdict(
            conflict_id=conflict.id,
            decision="SUPERSEDE",
            confidence=0.85,
            reason=(
                f"'{new.statement}' from {new.valid_at.date()} says the opposite of "
                f"'{old.statement}' ({old.valid_at.date()})"
            ),
        )
    return Verdict(
        conflict_id=conflict.id,
        decision="SUPERSEDE",
        confidence=0.5,
        reason=(
            f"'{new.statement}' and '{old.statement}' are opposite and stated for the same "
            "time; proposing the later-learned one holds: confirm or reject"
        ),
    )
