"""The keyword channel's weight for one query (memvault.recall.fusion.keyword_trust): whole
when its best match stands out, down to ``keyword_flat_weight`` when its matches are level."""

from __future__ import annotations

import pytest

from memvault.config import RecallSettings
from memvault.recall import fusion
from memvault.recall.candidates import Candidates


def _candidates(keyword: list[float], dense_only: float = 0.0) -> Candidates:
    c = Candidates("ns")
    c.add_channel("keyword", "episode", [(f"k{n}", v) for n, v in enumerate(keyword)])
    c.add_channel("dense", "episode", [(f"k{n}", 0.2) for n in range(len(keyword))])
    if dense_only:
        c.add_channel("dense", "episode", [("answer", dense_only)])
    return c


def test_level_matches_halve_the_channel_and_say_so() -> None:
    c = _candidates([2.0] * 12)
    assert fusion.keyword_trust(c, RecallSettings()) == pytest.approx(0.5)
    assert c.signal["flat"] == dict.fromkeys(c.signal["keyword"], 0.5)


def test_a_best_match_that_stands_out_keeps_the_whole_weight() -> None:
    c = _candidates([6.0] + [2.0] * 11)  # best / mean of ten - 1 = 6 / 2.4 - 1 = 1.5
    assert fusion.keyword_trust(c, RecallSettings()) == 1.0
    assert c.signal["flat"] == {}


def test_in_between_in_proportion() -> None:
    c = _candidates([3.0] + [2.0] * 11)  # 3 / 2.1 - 1 = 0.43; over 0.5: 0.86
    assert fusion.keyword_trust(c, RecallSettings()) == pytest.approx((3.0 / 2.1 - 1) / 0.5)


@pytest.mark.parametrize("scores", [[2.0] * 9, []])
def test_fewer_than_ten_matches_are_not_judged(scores: list[float]) -> None:
    assert fusion.keyword_trust(_candidates(scores), RecallSettings()) == 1.0


def test_off_by_setting_and_the_base_follows() -> None:
    """Level keyword matches give way to the memory only meaning found; off, they do not."""
    on, off = RecallSettings(), RecallSettings(keyword_standout=0.0)
    level = _candidates([2.0] * 12, dense_only=0.45)
    with_trust = fusion.base(level, on)
    without = fusion.base(_candidates([2.0] * 12, dense_only=0.45), off)
    answer, matched = ("episode", "answer"), ("episode", "k0")
    assert without[matched] > without[answer]  # 0.5·0.2/0.45 + 0.5 against 0.5
    assert with_trust[answer] > with_trust[matched]  # 0.5·0.2/0.45 + 0.25 against 0.5
    assert fusion.keyword_trust(_candidates([2.0] * 12), off) == 1.0


def test_the_floor_is_a_setting() -> None:
    c = _candidates([2.0] * 12)
    assert fusion.keyword_trust(c, RecallSettings(keyword_flat_weight=0.8)) == pytest.approx(0.8)
    with pytest.raises(ValueError):
        RecallSettings(keyword_flat_weight=1.5)


@pytest.mark.parametrize(
    "query", ["How many salsa classes have I been to?", "How often do I run?", "how  many?"]
)
def test_a_count_keeps_the_whole_weight(query: str) -> None:
    """Asked to count, every memory saying the words is evidence: level is the answer."""
    c = _candidates([2.0] * 12)
    assert fusion.keyword_trust(c, RecallSettings(), query) == 1.0
    assert c.signal["flat"] == {}
    assert fusion.keyword_trust(c, RecallSettings(), "What salsa classes do I like?") == 0.5
