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


def test_cues_keep_every_dropped_word_as_often_as_it_was_said() -> None:
    """A digest's cues with its text are the original's words and counts (stop words too),
    in sorted order: the keyword index reads the memory at its original length."""
    from collections import Counter

    from memvault.language.words import cue_words, plain_words

    original = "The dog and the cat and the bird went to the park on Monday at 9."
    digest = "The dog went to the park."
    cues = cue_words(original, digest)
    assert cues == sorted(cues)
    assert Counter(plain_words(digest)) + Counter(cues) == Counter(plain_words(original))
    assert cues.count("the") == 2 and "monday" in cues and "9" in cues
    assert " ".join(cues) not in original  # no sentence survives
