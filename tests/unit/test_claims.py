"""What tells two claims apart (memvault.language.claims): the tokens a merge may not lose."""

from __future__ import annotations

import pytest

from memvault.language.claims import claim_tokens, distinguishing, frame, states_amount
from memvault.recall.frame_search import longest_run


@pytest.mark.parametrize(
    ("a", "b", "differ"),
    [
        ("Invoice 2231 was paid.", "Invoice 2232 was paid.", {"2231", "2232"}),
        ("Deployed v2.4.1 to staging.", "Deployed v2.5.0 to staging.", {"v2.4.1", "v2.5.0"}),
        ("Meeting in room 4B at 9:30.", "Meeting in room 4C at 9:30.", {"4b", "4c"}),
        ("Paid €40 for the tickets.", "Paid €45 for the tickets.", {"€40", "€45"}),
        ("Dinner with Keiko on Friday.", "Dinner with Rafael on Friday.", {"keiko", "rafael"}),
        ("We fly on 2025-07-01.", "We fly on 2025-07-08.", {"2025-07-01", "2025-07-08"}),
        ("I have two sisters.", "I have three sisters.", {"two", "three"}),
        ("The build passed.", "The build hasn't passed.", {"¬"}),
    ],
)
def test_what_differs_is_named(a: str, b: str, differ: set[str]) -> None:
    assert distinguishing(a, b) == differ


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("I went to salsa class again.", "I went to salsa class again!"),
        ("Hi, how are you?", "Hey, how are you?"),  # openers are no names
        ("Standup moved to 9:30.", "The standup moved to 9:30."),
    ],
)
def test_wording_alone_tells_nothing_apart(a: str, b: str) -> None:
    assert distinguishing(a, b) == set()


def test_sentence_openers_are_not_names_but_names_are() -> None:
    assert claim_tokens("Yesterday Maya said so. Then Ana left.") == {"maya", "ana"}


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("I've been moved under Priyanka.", "I've been moved under Osei.", True),
        ("Our new flat is in Walthamstow.", "Our new flat is in Ealing!", True),
        ("My employer is Nimbus Freight.", "My employer is Copperleaf.", True),  # one slot
        ("I ran 5 km today.", "I ran 12 km today.", True),
        ("Long day at Ardent Bio again.", "Long day at Kestrel Pay again.", True),
        ("I've been moved under Osei.", "I've been moved under the sales team.", False),
        ("Our new flat is in Ealing.", "Our old flat was in Ealing.", False),
    ],
)
def test_one_frame_for_another_value(a: str, b: str, same: bool) -> None:
    assert frame(a) is not None and (frame(a) == frame(b)) is same


def test_no_frame_without_a_slot_or_with_too_few_words() -> None:
    assert frame("I went to salsa class again.") is None  # nothing to fill
    assert frame("Thanks, Mel!") is None  # a name, but too little said
    assert frame("Long day at work again.") is None  # a capital at the start is the sentence's


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("What goes well with a vegetarian lasagne for twelve guests?", True),
        ("Is it normal for my six-month-old to wake up at night?", True),
        ("The class is $40 a session.", True),
        ("We met at 9:30 by the station.", True),
        ("It was the one I bought last spring.", False),  # "one" is mostly a pronoun
        ("The first time I tried it, I fell twice.", False),  # order and frequency
        ("Any ideas for a dinosaur party?", False),
    ],
)
def test_a_text_that_says_a_number(text: str, says: bool) -> None:
    assert states_amount(text) is says


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("Signed the lease in Ealing today.", ["signed the lease in"]),
        ("I've been moved under Osei.", ["i've been moved under"]),
        # the longest run between the slots, at most six words
        (
            "Quick update from Rui: we finally agreed on the whole roadmap for Q3.",
            ["we finally agreed on the whole"],
        ),
        ("Lisbon 2024 or Porto 2025 with Ana and Mel.", []),  # no run of two words
    ],
)
def test_a_frame_is_searched_by_its_longest_run_of_words(text: str, phrase: list[str]) -> None:
    f = frame(text)
    assert (longest_run(f) if f else []) == phrase
