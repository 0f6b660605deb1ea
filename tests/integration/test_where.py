"""A question asking where is answered by a turn that names a place, which may share no word
with it (issue "Recall on real conversations": knowledge updates said in other words)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault import FixedClock
from memvault.embed.onnx import OnnxEmbedder
from tests.lifts import asked_on_and_off

TALK = [
    "Can you help me think through my neighbourhood?",
    "I'm trying to sort out rent this week, where do I start?",
    "Any tips on living with a noisy upstairs flat?",
    "Can you help me think through my moving budget?",
]
LEASE = "Signed the lease in Ealing today."


def _scores(tmp_path: Path, minilm: OnnxEmbedder, clock: FixedClock, question: str) -> dict:
    said = [("user", text) for text in [*TALK[:2], LEASE, *TALK[2:]]]
    hits = asked_on_and_off(tmp_path, minilm, clock, "where", 0.3, said, question)
    return {weight: {h.text: h for h in found} for weight, found in hits.items()}


def test_a_question_asking_where_lifts_the_turn_that_names_a_place(
    tmp_path: Path, minilm: OnnxEmbedder, clock: FixedClock
) -> None:
    """ "Where am I living at the moment?": "Signed the lease in Ealing today." shares no word
    with it; its score is × 1.3 of what it is with `where` off by name, and its explanation
    says why; the requests around it, which name no place, score as before."""
    hits = _scores(tmp_path, minilm, clock, "Where am I living at the moment?")
    on, off = hits[0.3][LEASE], hits[0.0][LEASE]
    assert on.score == pytest.approx(1.3 * off.score, rel=1e-3)
    assert on.explanation.signals.get("where") == 0.3
    assert "names a place, asked where" in on.explanation.text()
    assert not off.explanation.signals.get("where")
    for text in TALK:
        assert hits[0.3][text].score == pytest.approx(hits[0.0][text].score, rel=1e-6), text


def test_a_question_not_asking_where_lifts_nothing(
    tmp_path: Path, minilm: OnnxEmbedder, clock: FixedClock
) -> None:
    hits = _scores(tmp_path, minilm, clock, "What did I sign today?")
    assert hits[0.3][LEASE].score == pytest.approx(hits[0.0][LEASE].score, rel=1e-6)
    assert not hits[0.3][LEASE].explanation.signals.get("where")
