"""When a turn says its event happened, read against the turn's own time
(memvault.language.told)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memvault.language.told import told

SAID = datetime(2023, 8, 19, 18, tzinfo=UTC)  # a Saturday evening


@pytest.mark.parametrize(
    ("text", "days", "spread"),
    [
        ("Yep, last month I drove somewhere fun.", -30, 15.0),
        ("I'm stoked for my game there next month!", 30, 15.0),
        ("Yesterday was rough.", -1, 1.0),
        ("We fly out tomorrow morning", 1, 1.0),
        ("Last Friday I went to the castle.", -1, 1.0),
        ("Next Friday we go.", 6, 1.0),
        ("A few weeks ago I went to a parade.", -21, 6.65),
        ("I started lifting weights 2 years back.", -730, 292.0),
        ("In a couple of weeks we move.", 14, 5.6),
        ("We had fun last weekend at the lake.", -6.5, 1.5),
    ],
)
def test_a_turn_s_own_time_words_are_read_from_when_it_was_said(
    text: str, days: float, spread: float
) -> None:
    (found,) = told(text, SAID)
    assert found.centre - SAID == pytest.approx(timedelta(days=days), abs=timedelta(hours=1))
    assert found.spread_days == pytest.approx(spread)
    assert found.said.lower() in text.lower()


def test_last_weekday_said_on_that_weekday_is_a_week_before() -> None:
    friday = datetime(2023, 8, 18, 12, tzinfo=UTC)
    (last,) = told("Last Friday was better.", friday)
    (nxt,) = told("Next Friday then.", friday)
    assert (friday - last.centre).days == 7 and (nxt.centre - friday).days == 7


def test_words_that_are_not_a_time_name_none() -> None:
    for text in ("At last, the last time we met.", "A week is a long time.", "Today!", ""):
        assert told(text, SAID) == ()


def test_several_expressions_in_order_and_at_most_four() -> None:
    text = "Yesterday, two days ago, last week, last month, last year and next week."
    found = told(text, SAID)
    assert [w.said for w in found] == ["Yesterday", "two days ago", "last week", "last month"]


def test_a_long_reply_is_read_around_its_time_words_only() -> None:
    filler = "We talked about training plans, budgets and the garden on a sunny afternoon. "
    text = filler * 40 + "Three months ago I started running." + filler * 10
    (found,) = told(text, SAID)
    assert found.said == "Three months ago"
    assert (SAID - found.centre).days == 90


def test_hostile_text_is_read_without_error_and_long_text_is_not_kept() -> None:
    from memvault.language import told as module

    module._kept.cache_clear()
    dirty = "\u200bYesterday\x00 we \x1b[31mwent\u202e out; " + "day " * 50_000 + "last week"
    found = told(dirty, SAID)
    assert [w.said for w in found] == ["Yesterday", "last week"]
    assert module._kept.cache_info().currsize == 0  # 200,000 characters: read, not kept
    assert told("Yesterday was fine.", SAID) == told("Yesterday was fine.", SAID)
    assert module._kept.cache_info().hits == 1
