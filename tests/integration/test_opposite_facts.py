"""Opposite statements about one object (predicates the ontology declares opposite: likes /
dislikes, prefers / dislikes) are a contradiction the dream resolves over time: the later
one holds from when it was said, the earlier stays answerable as of before then, a judge's
MERGE of the two is refused, and statements about different objects coexist."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memvault import MemVault
from memvault.kg.model import Fact
from memvault.kg.temporal_conflict import find_conflicts, rule_verdict

START = datetime(2026, 1, 5, 12, tzinfo=UTC)
LATER = START + timedelta(days=140)
NOW = LATER + timedelta(days=10)
OPPOSITES = [frozenset({"likes", "dislikes"})]


def _fact(predicate: str, obj: str, at: datetime) -> Fact:
    return Fact(namespace="lea", subject_id="e1", subject="Lea", predicate=predicate,
                object=obj, statement=f"Lea {predicate} {obj}", valid_at=at,
                created_at=at)  # fmt: skip


def test_opposites_about_one_object_conflict_and_the_later_holds() -> None:
    likes, dislikes = _fact("likes", "Thai food", START), _fact("dislikes", "thai food", LATER)
    other = _fact("dislikes", "open-plan offices", LATER)
    found = find_conflicts([likes, dislikes, other], set(), opposites=OPPOSITES)
    assert [(c.old.id, c.new.id) for c in found] == [(likes.id, dislikes.id)]
    verdict = rule_verdict(found[0])
    assert verdict.decision == "SUPERSEDE" and verdict.confidence >= 0.8
    assert find_conflicts([likes, dislikes], set()) == []  # without the ontology's pairs
    same_time = rule_verdict(find_conflicts([likes, _fact("dislikes", "Thai food", START)],
                                            set(), opposites=OPPOSITES)[0])  # fmt: skip
    assert same_time.decision == "SUPERSEDE" and same_time.confidence < 0.8  # to review


def test_the_dream_ends_a_liking_said_no_more(vault: MemVault) -> None:
    said = [
        (START, "I really love Thai food, especially green curry."),
        (START, "I can't stand loud open-plan offices."),
        (LATER, "I don't like Thai food anymore, too spicy for me now."),
    ]
    for n, (when, text) in enumerate(said):
        vault.write(text, speaker="Lea", session_id=f"s{n}", namespace="lea", now=when)
    before = {(f.predicate, f.object) for f in vault.facts(namespace="lea", as_of=NOW)}
    assert {("likes", "Thai food"), ("dislikes", "Thai food")} <= before  # both "current"
    vault.dream(namespace="lea", apply=True, force=True, now=NOW)
    now = {(f.predicate, f.object) for f in vault.facts(namespace="lea", as_of=NOW)}
    assert ("dislikes", "Thai food") in now and ("likes", "Thai food") not in now
    assert ("dislikes", "loud open-plan offices") in now  # another object: untouched
    then = {
        (f.predicate, f.object)
        for f in vault.facts(namespace="lea", as_of=LATER - timedelta(days=1))
    }
    assert ("likes", "Thai food") in then  # history kept


def test_before_a_dream_recall_puts_the_newer_opposite_first(vault: MemVault) -> None:
    vault.write("I really love Thai food, especially green curry.", speaker="Lea",
                session_id="a", namespace="lea", now=START)  # fmt: skip
    vault.write("I don't like Thai food anymore, too spicy for me now.", speaker="Lea",
                session_id="b", namespace="lea", now=LATER)  # fmt: skip
    hits = vault.recall("Does Lea like Thai food?", namespace="lea", k=4, now=NOW)
    facts = [h.text for h in hits if h.kind == "fact"]
    assert facts[:2] == ["Lea dislikes Thai food", "Lea likes Thai food"]
    assert hits[0].text == "Lea dislikes Thai food"
    old = next(h for h in hits if h.text == "Lea likes Thai food")
    assert "contested by the newer" in old.explanation.text()


def test_facts_mark_the_older_opposite_contested_until_the_dream(vault: MemVault) -> None:
    vault.write("I really love Thai food.", speaker="Lea", session_id="a", namespace="lea",
                now=START)  # fmt: skip
    vault.write("I don't like Thai food anymore.", speaker="Lea", session_id="b",
                namespace="lea", now=LATER)  # fmt: skip
    disputed = vault.contested(namespace="lea", as_of=NOW)
    assert [newer.statement for newer in disputed.values()] == ["Lea dislikes Thai food"]
    older = next(f for f in vault.facts(namespace="lea", as_of=NOW) if f.predicate == "likes")
    assert older.id in disputed
    vault.dream(namespace="lea", apply=True, force=True, now=NOW)
    assert vault.contested(namespace="lea", as_of=NOW) == {}  # settled: superseded
