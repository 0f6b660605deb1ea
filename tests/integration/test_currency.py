"""Recall knows what is current: what the vault knows was replaced ranks below what replaced
it at ``now``, above it at an ``as_of`` inside its validity, and history questions keep it;
an undone dream gives back the old ranking exactly."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memvault import MemVault
from tests import maya

START = datetime(2025, 1, 10, tzinfo=UTC)
NOW = START + timedelta(days=200)
Q = "where does Maya live"


def _rank(vault: MemVault, query: str = Q, **kw: object) -> list[str]:
    return [h.text for h in vault.recall(query, namespace="maya", k=10, now=NOW, **kw)]


def _pos(ranking: list[str], needle: str) -> int:
    return next(i for i, text in enumerate(ranking) if needle in text)


def test_current_beats_outdated_before_and_after_the_dream_and_undo_restores(
    vault: MemVault,
) -> None:
    maya.write(vault, START, namespace="maya")
    before = vault.recall(Q, namespace="maya", k=10, now=NOW)
    assert before[0].kind == "fact" and "Lisbon" in before[0].text  # the fact answers first
    assert "answers the question" in before[0].explanation.text()
    texts = [h.text for h in before]
    assert _pos(texts, "moved to Lisbon") < _pos(texts, "live in Berlin")
    berlin = next(h for h in before if "live in Berlin" in h.text)
    assert "contested" in berlin.explanation.text()  # provisional: no dream has judged yet

    result = vault.dream(namespace="maya", apply=True, force=True, now=NOW)
    after = vault.recall(Q, namespace="maya", k=10, now=NOW)
    assert "Lisbon" in after[0].text
    berlin = next(h for h in after if "live in Berlin" in h.text)
    assert "superseded on" in berlin.explanation.text()  # never hidden, explained
    texts = [h.text for h in after]
    assert _pos(texts, "moved to Lisbon") < _pos(texts, "live in Berlin")

    # as of a date inside Berlin's validity, Berlin is what was true
    then = vault.recall(Q, namespace="maya", k=10, now=NOW, as_of=START + timedelta(days=60))
    assert "Berlin" in then[0].text
    # a history question gets the old statement, lifted as its answer, never demoted
    history = vault.recall("where did Maya live before", namespace="maya", k=10, now=NOW)
    old = next(h for h in history if "live in Berlin" in h.text)
    assert old.explanation.factors.currency > 1.0
    assert "Maya's residence was 'Berlin' before 'Lisbon'" in old.explanation.text()

    assert result.run_id is not None
    vault.undo_dream(result.run_id, namespace="maya")
    assert _rank(vault) == [h.text for h in before]


def test_supersession_buries_nothing_about_other_things(vault: MemVault) -> None:
    maya.write(vault, START, namespace="maya")
    vault.dream(namespace="maya", apply=True, force=True, now=NOW)
    # the Berlin turn also says where she works, which is still true
    hits = vault.recall("where does Maya work", namespace="maya", k=10, now=NOW)
    assert "Helio Labs" in hits[0].text
    turn = next(h for h in hits if "live in Berlin" in h.text)
    # not demoted for the move: it is Maya's newest statement of where she works
    assert turn.explanation.factors.currency > 1.0
    assert "newest statement on employer" in turn.explanation.text()


def test_between_dreams_the_older_value_is_contested_and_a_restatement_reinforces(
    vault: MemVault,
) -> None:
    day = START
    for i, (text, session) in enumerate(
        [("I live in Lisbon.", "a"), ("I work at Tidewater.", "b"), ("I live in Rome now.", "c")]
    ):
        vault.write(text, speaker="Tom", session_id=session, namespace="tom",
                    now=day + timedelta(days=100 * i))  # fmt: skip
    at = START + timedelta(days=250)
    live = vault.facts(namespace="tom", subject="Tom", predicate="lives_in", as_of=at)
    assert sorted(f.object for f in live) == ["Lisbon", "Rome"]  # both valid: no dream yet
    disputed = vault.contested(namespace="tom", as_of=at)
    (lisbon,) = [f for f in live if f.object == "Lisbon"]
    assert disputed[lisbon.id].object == "Rome"
    hits = vault.recall("where does Tom live now", namespace="tom", now=at)
    assert "Rome" in hits[0].text
    lisbon_turn = next(h for h in hits if h.text == "I live in Lisbon.")
    assert "provisional" in lisbon_turn.explanation.text()

    vault.write("Still living in Rome, loving it.", speaker="Tom", session_id="d",
                namespace="tom", now=at)  # fmt: skip
    vault.write("I live in Rome.", speaker="Tom", session_id="e", namespace="tom", now=at)
    facts = vault.facts(namespace="tom", subject="Tom", predicate="lives_in", as_of=at)
    rome = next(f for f in facts if f.object == "Rome")
    assert rome.reinforced_count >= 1 and rome.last_reinforced_at == at


def test_a_person_who_moved_twice_gets_the_current_fact_first_after_the_dream(
    vault: MemVault,
) -> None:
    for i, (text, session) in enumerate(
        [("I live in Oslo.", "a"), ("We moved to Lisbon.", "b"), ("I live in Lisbon.", "c"),
         ("I live in Rome.", "d"), ("Rome is lovely in spring.", "e")]
    ):  # fmt: skip
        vault.write(text, speaker="Tom", session_id=session, namespace="tom",
                    now=START + timedelta(days=120 * i))  # fmt: skip
    at = START + timedelta(days=700)
    vault.dream(namespace="tom", apply=True, force=True, now=at)
    hits = vault.recall("where does Tom live now", namespace="tom", now=at)
    assert hits[0].kind == "fact" and hits[0].text.endswith("Rome")
    texts = [h.text for h in hits]
    assert _pos(texts, "I live in Rome.") < _pos(texts, "I live in Oslo.")


def test_a_replaced_statement_lends_no_lift_to_its_neighbours(vault: MemVault) -> None:
    """The turn after "I live in Berlin" rose on Berlin's relevance (context and session
    lifts) even once Lisbon replaced it; a lift now shrinks with the statement that lent it."""
    from memvault.demo import demo_items

    now = datetime(2026, 1, 1, tzinfo=UTC)
    for at, items in demo_items():  # sessions of several turns, Berlin's among them
        vault.write_many(items, namespace="maya", now=at)
    vault.dream(namespace="maya", apply=True, force=True, now=now)
    hits = vault.recall(Q, namespace="maya", k=20, now=now)
    berlin = next(h for h in hits if "live in Berlin" in h.text)
    assert berlin.explanation.factors.currency < 1.0
    same_session = [
        h
        for h in hits
        if h.kind == "episode"
        and h.id != berlin.id
        and h.episode is not None
        and berlin.episode is not None
        and h.episode.session_id == berlin.episode.session_id
    ]
    assert same_session
    vault.settings.recall.currency = False  # the lifts as they were, undiscounted
    plain = {h.id: h for h in vault.recall(Q, namespace="maya", k=20, now=now)}
    for h in same_session:
        lifted = plain[h.id].explanation.signals
        now = h.explanation.signals
        assert now.get("session", 0.0) < lifted.get("session", 0.0)
        assert now.get("context", 0.0) <= lifted.get("context", 0.0)


def test_a_question_about_getting_to_work_is_not_answered_by_the_employer(
    vault: MemVault,
) -> None:
    for i, text in enumerate(
        ["I work at Northwind Bank and I drive to work every day.",
         "Sold the car! These days I take the tram to work."]
    ):  # fmt: skip
        vault.write(text, speaker="Priya", session_id=f"s{i}", namespace="priya",
                    now=START + timedelta(days=30 * i))  # fmt: skip
    at = START + timedelta(days=90)
    job = vault.recall("Where does Priya work now?", namespace="priya", now=at)
    assert job[0].kind == "fact" and "answers the question" in job[0].explanation.text()
    assert job[0].text == "Priya works at Northwind Bank"
    commute = vault.recall("How does Priya get to work now?", namespace="priya", now=at)
    assert all(h.kind == "episode" for h in commute[:2])  # the employer fact answers nothing
    assert all("answers the question" not in h.explanation.text() for h in commute)
