"""What kind of thing a question asks for (memvault.language.asked)."""

from __future__ import annotations

import pytest

from memvault.language.asked import asked_kind


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Where is Olga based these days?", "place"),
        ("Which city does Bram call home?", "place"),
        ("What neighbourhood am I in now?", "place"),
        ("Who is Xena seeing at the moment?", "person"),
        ("Who's her manager now?", "person"),
        ("Who does Aiko work for?", None),  # an employer, not a person
        ("What does Milan eat?", None),
        ("Which team is Hanna on?", None),
    ],
)
def test_the_kind_a_question_asks_for(question: str, kind: str | None) -> None:
    assert asked_kind(question) == kind
