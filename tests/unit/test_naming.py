"""A question asking which thing, and a turn that names one (memvault.language.naming):
question words, capitals and sentences, no list of names."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memvault.language.naming import asks_which_thing, names_one, question_stems


@pytest.mark.parametrize(
    "question",
    [
        "Which fund did you recommend to me?",
        "What walking route did you suggest in Lisbon?",
        "Which book should I read next, according to you?",
    ],
)
def test_questions_asking_which_thing(question: str) -> None:
    assert asks_which_thing(question)


@pytest.mark.parametrize(
    "question",
    [
        "What did Caroline research?",  # no noun after "what"
        "What is my favourite colour?",
        "What time is the match?",  # a time: the when lift's
        "Which city do I live in?",  # a place: the where lift's
        "Which manager do I report to?",  # a person
        "How many books did I read?",
        "What kind of pottery did Mel make?",  # a kind is asked for, not one by name
        "Which types of cars does Dave like?",
        "Tell me about the trip.",
    ],
)
def test_questions_asking_something_else(question: str) -> None:
    assert not asks_which_thing(question)


FUND = question_stems("Which fund did you recommend to me?")


def test_a_sentence_sharing_the_question_word_and_naming_something() -> None:
    assert names_one("A good choice would be a Vanguard LifeStrategy fund for simplicity.", FUND)
    # the name may sit in any sentence that shares a word, not only the first
    assert names_one("Start small. Many recommend the Fidelity Freedom fund.", FUND)
    # a capital of any script
    assert names_one("For a green fund, look at Ørsted-linked ones.", FUND)


@pytest.mark.parametrize(
    "text",
    [
        # shares the words, names nothing
        "It is worth keeping notes on index fund so you can see what you tried.",
        # names something, in a sentence that shares no word with the question
        "It is worth keeping notes on index fund. We met Priya in Porto.",
        # the first word of a sentence, "I", a month or a day are no names
        "Funds vary. I recommend it. In March I looked at funds again on Friday.",
        # a speaker of the chat names no thing
        "Hey Calvin! Some people recommend a fund.",
        # a capital the question itself says
        "Which Fund? The fund you asked about.",
    ],
)
def test_turns_that_name_nothing_new(text: str) -> None:
    assert not names_one(text, FUND, frozenset({"calvin"}))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400), st.text(max_size=120))
def test_any_text_and_question_are_read_without_error(text: str, question: str) -> None:
    """Real turns are dirty (control characters, other scripts, regex metacharacters in a
    question's words): each is read, never a traceback."""
    assert isinstance(asks_which_thing(question), bool)
    assert isinstance(names_one(text, question_stems(question)), bool)
    assert isinstance(names_one(text, question_stems("which (a+)* [fund] did you pick?")), bool)
