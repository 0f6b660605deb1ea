"""A question asking where is answered by a turn that names a place, which may share no word
with it (issue "Recall on real conversations": knowledge updates said in other words)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from memvault import FixedClock, MemVault
from memvault.embed.onnx import OnnxEmbedder
from tests.conftest import T0

TALK = [
    "Can you help me think through my neighbourhood?",
    "I'm trying to sort out rent this week, where do I start?",
    "Any tips on living with a noisy upstairs flat?",
    "Can you help me think through my moving budget?",
]
LEASE = "Signed the lease in Ealing today."


def _scores(tmp_path: Path, minilm: OnnxEmbedder, clock: FixedClock, question: str) -> dict:
    out = {}
    for weight in (0.3, 0.0):
        vault = MemVault.open(
            tmp_path / f"where-{weight}-{len(question)}.db",
            embedder=minilm,
            clock=clock,
            recall={"channel_weights": {"where": weight}},
        )
        for n, text in enumerate([*TALK[:2], LEASE, *TALK[2:]]):
            at = T0 + timedelta(days=5 * n)
            vault.write(text, speaker="user", session_id=f"s{n}", occurred_at=at)
        hits = vault.recall(question, k=10, now=T0 + timedelta(days=60))
        out[weight] = {h.text: h for h in hits}
        vault.close()
    return out


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
