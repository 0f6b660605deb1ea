"""Currency verdicts, pure: who replaced whom, what was only ended, what is contested, and
that nothing about other things moves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from memvault.kg.model import Fact
from memvault.recall.currency import assess, contested, is_history_question, stems

T = datetime(2025, 1, 1, tzinfo=UTC)
FACTORS = {"outdated_factor": 0.3, "current_factor": 1.2, "contested_factor": 0.5,
           "answer_factor": 1.3}  # fmt: skip


def fact(pred: str, obj: str, day: int, until: int | None = None, src: str = "") -> Fact:
    return Fact(
        namespace="n", subject_id="tom", subject="Tom", predicate=pred, object=obj,
        statement=f"Tom {pred.replace('_', ' ')} {obj}", valid_at=T + timedelta(days=day),
        invalid_at=T + timedelta(days=until) if until is not None else None,
        created_at=T + timedelta(days=day), source_episode_ids=[src or f"ep-{obj}"],
    )  # fmt: skip


def run(facts: list[Fact], query: str, single: frozenset[str] = frozenset({"lives_in"})) -> Any:
    return assess(facts, T + timedelta(days=400), query=query, named={"tom"},
                  single_valued=lambda p: p in single, **FACTORS)  # fmt: skip


def test_a_chain_of_moves_names_the_direct_replacement() -> None:
    oslo = fact("lives_in", "Oslo", 0, 100)
    lisbon = fact("lives_in", "Lisbon", 100, 200)
    rome = fact("lives_in", "Rome", 200)
    found = run([oslo, lisbon, rome], "where does Tom live now")
    assert "by 'Tom lives in Lisbon'" in found.facts[oslo.id].why
    assert "by 'Tom lives in Rome'" in found.facts[lisbon.id].why
    assert found.episodes["ep-Oslo"].factor == 0.3 and found.episodes["ep-Rome"].factor == 1.2
    assert [f.object for f in found.answers] == ["Rome"]


def test_an_ended_value_of_a_many_valued_predicate_lifts_nothing_else() -> None:
    chess, tennis = fact("likes", "chess", 0, 100), fact("likes", "tennis", 50)
    found = run([chess, tennis], "what does Tom like", single=frozenset())
    assert found.facts[chess.id].why == "no longer true since 2025-04-11"
    assert "ep-tennis" not in found.episodes or found.episodes["ep-tennis"].factor == 1.0


def test_contested_before_a_verdict_and_same_time_values_coexist() -> None:
    lisbon, rome = fact("lives_in", "Lisbon", 0), fact("lives_in", "Rome", 100)
    found = run([lisbon, rome], "where does Tom live")
    assert "provisional" in found.facts[lisbon.id].why
    a, b = fact("lives_in", "Lisbon", 0), fact("lives_in", "Porto", 0)
    assert contested([a, b], T + timedelta(days=1), lambda p: True) == {}
    assert contested([lisbon, rome], T + timedelta(days=101), lambda p: True)[lisbon.id] is rome


def test_other_predicates_and_history_questions_are_left_alone() -> None:
    oslo, rome = fact("lives_in", "Oslo", 0, 100), fact("lives_in", "Rome", 100)
    assert run([oslo, rome], "where does Tom work").episodes == {}
    assert is_history_question("where did Tom live before Rome")
    history = run([oslo, rome], "where did Tom live before Rome")
    assert history.episodes.get("ep-Oslo") is None
    assert history.answers == []  # the current value does not answer a question about the past


def test_stems_match_a_question_verb_with_a_predicate() -> None:
    assert stems("where does she live") & stems("lives in")
    assert stems("is he still working there") & stems("works at")
