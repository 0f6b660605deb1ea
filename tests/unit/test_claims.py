"""What tells two claims apart (memvault.language.claims): the tokens a merge may not lose."""

from __future__ import annotations

import pytest

from memvault.language.claims import claim_tokens, distinguishing


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
