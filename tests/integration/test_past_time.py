"""A question about a past time, end to end with the real embedder: a state asked about
("Where did Maya live in April 2025?") is judged as of then (memvault.language.when.
looked_back, setting ``judge_then``), an event at a past time is the one nearest then."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from memvault import FixedClock, MemVault
from tests import maya
from tests.integration.test_currency import NOW, START, Q, _pos
from tests.integration.test_groups import NEW, OLD, T, history, order


def test_a_question_about_a_past_time_is_answered_as_of_then(tmp_path: Path) -> None:
    """OLD was said on 1 March, NEW on 30 May. Asked in late June what Vera ate in April,
    OLD leads (NEW was not yet said); asked what she ate in June, NEW leads: the group is
    ordered as of the time the question names. With ``judge_then`` off the April question
    is judged as of the question's own time, and NEW leads it too."""
    clock = FixedClock(T + timedelta(days=120))
    april, june = "What did Vera eat in April 2025?", "What did Vera eat in June 2025?"
    with MemVault.open(tmp_path / "off.db", clock=clock, recall={"judge_then": False}) as off:
        history(off)
        april_off = order(off, april)
    assert april_off.index(NEW) < april_off.index(OLD)
    with MemVault.open(tmp_path / "on.db", clock=clock) as vault:
        history(vault)
        hits = vault.recall(april, k=6)
        texts = [h.text for h in hits]
        assert texts.index(OLD) < texts.index(NEW)  # both still there: never a filter
        note = hits[texts.index(OLD)].explanation.factors.currency_note or ""
        assert "the newest said by 2025-04-15 first" in note
        later = order(vault, june)
        assert later.index(NEW) < later.index(OLD)


def test_an_event_at_a_past_time_is_the_one_nearest_then_not_the_last_before(
    tmp_path: Path,
) -> None:
    """Which ramen place, about three weeks ago: the visit two weeks ago is nearest then,
    though said after the window's centre. An event is no state: the as-of reading is for
    a question about an attribute with one value at a time, and the time lift finds the
    event."""
    asked_at = T + timedelta(days=120)
    visits = [(70, "Koji"), (14, "Hoshi"), (2, "Tonkotsu Ya")]
    with MemVault.open(tmp_path / "v.db", clock=FixedClock(asked_at)) as vault:
        for n, (days, place) in enumerate(visits):
            at = asked_at - timedelta(days=days)
            vault.write(f"Tried a new ramen place tonight: {place}.", speaker="Vera",
                        session_id=f"r{n}", now=at)  # fmt: skip
        texts = order(vault, "Which ramen place did I try about three weeks ago?")
    assert texts[0] == "Tried a new ramen place tonight: Hoshi."


def test_a_question_about_a_past_time_gets_what_was_true_then(tmp_path: Path) -> None:
    """Asked at NOW where Maya lived in April 2025 (Berlin, from January until her move in
    June), after the dream replaced Berlin with Lisbon: Berlin leads, the replaced fact is
    shown (it was true then), and Lisbon's statement, said after, is below it; asked where
    she lives, Lisbon leads and the replaced fact is not shown. With ``judge_then`` off the
    question is judged as of NOW and the replaced fact stays hidden."""
    asked = "Where did Maya live in April 2025?"
    for on in (True, False):
        with MemVault.open(tmp_path / f"{on}.db", recall={"judge_then": on}) as vault:
            maya.write(vault, START, namespace="maya")
            vault.dream(namespace="maya", apply=True, force=True, now=NOW)
            then = vault.recall(asked, namespace="maya", k=10, now=NOW)
            replaced = [h for h in then if h.kind == "fact" and "Berlin" in h.text]
            if not on:
                assert replaced == []
                continue
            texts = [h.text for h in then]
            assert "Berlin" in texts[0]
            assert "(as of 2025-04-15, the time asked about)" in then[0].explanation.text()
            assert _pos(texts, "live in Berlin") < _pos(texts, "moved to Lisbon")
            assert replaced and replaced[0].fact is not None
            assert replaced[0].fact.invalid_at is not None  # replaced since, true then
            note = replaced[0].explanation.factors.currency_note or ""
            assert "the time asked about; no longer: ended" in note  # never taken as current
            now = vault.recall(Q, namespace="maya", k=10, now=NOW)
            assert "Lisbon" in now[0].text
            assert not [h for h in now if h.kind == "fact" and "Berlin" in h.text]
