"""A question asking which thing is answered by the turn that names one, among replies that
share its words alike (issue "Recall on real conversations": what the assistant said)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memvault import FixedClock
from memvault.embed.onnx import OnnxEmbedder
from tests.lifts import asked_on_and_off

TALK = [
    ("user", "Can you help me think through my index fund?"),
    ("assistant", "Many experts suggest reviewing your index fund every few weeks."),
    ("user", "Quick question about index fund fees for my pension."),
    ("assistant", "Some people recommend asking a friend about an index fund, it helps."),
    ("assistant", "It is worth keeping notes on each fund so you can see what you tried."),
]
NAMED = "A good choice would be a Vanguard LifeStrategy fund for simplicity."


def _hits(tmp_path: Path, minilm: OnnxEmbedder, clock: FixedClock, question: str) -> dict:
    said = [*TALK[:3], ("assistant", NAMED), *TALK[3:]]
    return asked_on_and_off(tmp_path, minilm, clock, "names", 0.5, said, question)


def test_a_question_asking_which_thing_lifts_the_turn_that_names_one(
    tmp_path: Path, minilm: OnnxEmbedder, clock: FixedClock
) -> None:
    """ "Which fund did you recommend to me?": the reply naming a fund scores × 1.5 of what
    it scores with `names` off by name, says why, and rises above a reply it was below; the
    replies that share the question's words and name nothing score as before."""
    hits = _hits(tmp_path, minilm, clock, "Which fund did you recommend to me?")
    on, off = ({h.text: h for h in hits[w]} for w in (0.5, 0.0))
    assert on[NAMED].score == pytest.approx(1.5 * off[NAMED].score, rel=1e-3)
    assert on[NAMED].explanation.signals.get("names") == 0.5
    assert "names one, asked which" in on[NAMED].explanation.text()
    place = {w: [h.text for h in hits[w]].index(NAMED) for w in hits}
    assert place[0.5] < place[0.0]
    for _, text in TALK:
        assert on[text].score == pytest.approx(off[text].score, rel=1e-6), text
        assert not on[text].explanation.signals.get("names")


def test_a_question_not_asking_which_lifts_nothing(
    tmp_path: Path, minilm: OnnxEmbedder, clock: FixedClock
) -> None:
    hits = _hits(tmp_path, minilm, clock, "Did you recommend anything for my fund?")
    on, off = ({h.text: h for h in hits[w]} for w in (0.5, 0.0))
    assert on[NAMED].score == pytest.approx(off[NAMED].score, rel=1e-6)
    assert not on[NAMED].explanation.signals.get("names")
