"""A turn that names a place (memvault.language.places): a capitalised name after a
preposition of place, grammar and not a gazetteer."""

from __future__ import annotations

import pytest

from memvault.language.places import names_a_place


@pytest.mark.parametrize(
    "text",
    [
        "Signed the lease in Ealing today.",
        "We finally moved to Porto last spring.",
        "Found a tiny café near Alfama with the best pastries.",
        "Our new flat is in the Jordaan, third floor.",  # "the" before the name
        "Flew back from Reykjavík on the red-eye.",
    ],
)
def test_a_turn_naming_a_place(text: str) -> None:
    assert names_a_place(text)


@pytest.mark.parametrize(
    "text",
    [
        "I met him in March at a conference.",  # a month
        "Let's catch up on Friday, in the morning.",  # a day, nothing after "in" capitalised
        "Moving day done, and the boxes are everywhere.",
        "Ealing is where I grew up.",  # a name, but no preposition of place before it
        "Can you help me think through my neighbourhood?",
        "In my opinion, it was worth it.",  # "In" opens the sentence, "my" is no name
    ],
)
def test_a_turn_naming_no_place(text: str) -> None:
    assert not names_a_place(text)
