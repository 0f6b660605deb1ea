"""What says too little to be about anything (memvault.language.words.says_little)."""

from __future__ import annotations

import pytest

from memvault.language.words import says_little


@pytest.mark.parametrize("text", ["hello", "continue", "Thanks!", "I WIN", "ok", "", " \u200b "])
def test_one_word_or_none_says_little(text: str) -> None:
    assert says_little(text)


@pytest.mark.parametrize(
    "text",
    [
        "Okay new task",
        "I moved to Leith",
        "Yes, 42 days",
        "我今天搬到了新家",  # no spaces: each character is a word
        "引っ越しました",
    ],
)
def test_two_words_say_something(text: str) -> None:
    assert not says_little(text)


def test_the_bound_is_a_parameter() -> None:
    assert says_little("Okay new task", most=3)
    assert not says_little("Okay new task", most=2)
