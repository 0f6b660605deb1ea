"""Which texts say that something ended for good (memvault/language/endings.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memvault.language.endings import ends


@pytest.mark.parametrize(
    "text",
    [
        "Our sweet Biscuit passed away last night.",
        "Sold Rusty to a student from Leeds on Saturday.",
        "The Lanterns broke up after the summer.",
        "Moss & Mill shut down for good.",
        "We had to put Pepper to sleep on Tuesday.",
        "Cancelled my Iron Works membership.",
        "I resigned from Brightline in May.",
    ],
)
def test_an_ending_said_as_so(text: str) -> None:
    assert ends(text)


@pytest.mark.parametrize(
    "text",
    [
        "We never sold the car.",  # denied
        "We didn't quit.",
        "I might quit my job.",  # not done
        "Should I sell Rusty?",  # asked
        "Did Biscuit die?",
        "If the band broke up I would cry.",  # supposed
        "I left the café at noon.",  # a verb that ends something only sometimes
        "We lost the match on Sunday.",
        "Biscuit loves chasing squirrels.",
    ],
)
def test_no_ending(text: str) -> None:
    assert not ends(text)


@given(st.text(max_size=300))
def test_any_text_is_read_without_raising(text: str) -> None:
    assert ends(text) in (True, False)
