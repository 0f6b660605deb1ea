"""A turn that only asks (memvault.language.mood): grammar, not topics."""

from __future__ import annotations

import pytest

from memvault.language.mood import asks_only

SPEAKERS = {"caroline", "melanie"}


@pytest.mark.parametrize(
    "text",
    [
        "Cool! What type of music do you play?",
        "Wow, Caroline! Did you see that band?",
        "How long have you been reading her works?",
        "Are you currently reading any books? What's your favourite?",
        "Thanks! Anything else going on?",
        "Should I bring anything? What time do you want me there?",  # "I", "me": the frame
        "Did you see that one?",  # "one" is no number: a pronoun
    ],
)
def test_a_turn_that_only_asks(text: str) -> None:
    assert asks_only(text, SPEAKERS)


@pytest.mark.parametrize(
    "text",
    [
        "I moved to Lisbon, any tips?",  # opens with a statement
        "I play clarinet! What do you play?",  # tells something first
        "Can you recommend a vet for my dog Max?",  # names something: may carry a fact
        "Is it normal for my six-month-old to wake up every two hours?",  # "my": there is one
        "What should we pack for our honeymoon in the mountains?",  # "our" tells the same
        "Is 3 pm on Friday OK for the call?",  # a number
        "What goes well with a vegetarian lasagne for twelve guests?",  # a number in words
        "Yeah, that pic was from a show I went to.",  # no question at all
        "What a day.",  # an exclamation, no question
        "",
    ],
)
def test_a_turn_that_tells_something_is_not(text: str) -> None:
    assert not asks_only(text, SPEAKERS)


def test_a_long_turn_is_more_than_a_question() -> None:
    long = "What do you think about " + "the many options we have " * 40 + "?"
    assert not asks_only(long, SPEAKERS)


def test_hostile_text_reads_without_error() -> None:
    assert asks_only("\u200bWhat\x00 do you\x07 think?", SPEAKERS)
    assert not asks_only("?" * 10_000, SPEAKERS)
