"""Time in questions, read against the question's own time (memvault.language.when)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memvault.language.when import asks_when, looked_back, window

AT = datetime(2025, 10, 20, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "days_back", "widest"),
    [
        ("Which ramen place did I try about two months ago?", 61, 30.0),
        ("What did I cook last week?", 7, 6.0),
        ("the concert I went to three weeks ago", 21, 8.0),
        ("What did I do yesterday?", 1, 1.5),
        ("What was the thing I tried 5 months ago", 153, 40.0),
    ],
)
def test_a_relative_time_is_read_from_the_question_time(
    question: str, days_back: int, widest: float
) -> None:
    w = window(question, AT)
    assert w is not None
    assert abs((AT - w.centre).days - days_back) <= 2
    assert w.spread_days <= widest
    # favoured then, and still something either side (a factor, not a filter)
    assert w.weight(w.centre) == pytest.approx(1.0)
    assert 0.0 < w.weight(w.centre - timedelta(days=w.spread_days)) < 1.0


def test_a_month_or_a_year_is_the_whole_of_it() -> None:
    march = window("What did I buy in March?", AT)
    assert march is not None and (march.centre.month, march.centre.day) == (3, 15)
    assert march.centre.year == 2025 and march.spread_days == 15.0
    year = window("What did Caroline do in 2022?", AT)
    assert year is not None and (year.centre.year, year.centre.month) == (2022, 7)


@pytest.mark.parametrize(
    "question",
    [
        "Where do I work now?",
        "Which happened first, the wedding or the launch?",
        "What was the second thing I may march to?",  # "may", "march", "second" as words
        "",
    ],
)
def test_a_question_that_names_no_time_has_no_window(question: str) -> None:
    assert window(question, AT) is None


def test_a_time_after_the_question_is_no_window() -> None:
    assert window("What is planned for next month?", AT) is None


def test_a_day_named_opens_at_least_the_least_window() -> None:
    """A day named ("on March 16") is told of on the 17th ("yesterday I went bowling"): with
    a week's least spread that telling weighs nearly as much as the day itself; a month
    named keeps its own, wider spread."""
    day = window("What was James doing on March 16, 2022?", AT, least_days=7.0)
    assert day is not None and day.spread_days == 7.0
    told = datetime(2022, 3, 17, 15, 47, tzinfo=UTC)
    assert day.weight(told) > 0.95
    narrow = window("What was James doing on March 16, 2022?", AT)
    assert narrow is not None and narrow.weight(told) < 0.3
    month = window("What did I buy in March?", AT, least_days=7.0)
    assert month is not None and month.spread_days == 15.0


def test_a_week_of_a_month_and_a_span_between_two_dates() -> None:
    """ "the last week of August 2023" is that week, not the week before the question
    (dateparser alone read "in the last week" from the question's time); "between August 11
    and August 15" is the span between them; words between two things are no time."""
    at = datetime(2023, 12, 20, tzinfo=UTC)
    last = window("Where was Jolene during the last week of August 2023?", at, least_days=7.0)
    assert last is not None and last.centre == datetime(2023, 8, 28, tzinfo=UTC)
    second = window("Which country was Tim visiting in the second week of November?", at)
    assert second is not None and second.centre == datetime(2023, 11, 11, tzinfo=UTC)
    span = window("Where was John between August 11 and August 15 2023?", at)
    assert span is not None and span.centre == datetime(2023, 8, 13, tzinfo=UTC)
    assert span.spread_days == 2.0
    assert window("How many weeks passed between adopting Coco and Shadow?", at) is None


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("When did Maria meet Jean?", True),
        ("  when is my dentist appointment?", True),
        ("Since when have I been vegan?", True),
        ("How long ago did I move to Lisbon?", True),
        ("What year did Tim visit the UK?", True),
        ("Which month was the wedding?", True),
        ("What did I eat when I was in Rome?", False),
        ("Where did Evan go last week?", False),
        ("What time-management tips did you give me?", False),
    ],
)
def test_a_question_asking_for_a_time_is_known_by_how_it_opens(question: str, asks: bool) -> None:
    assert asks_when(question) is asks


def test_a_month_with_its_year_is_the_whole_month_too() -> None:
    """ "in June 2025" is June, as "in June" is (dateparser alone read it as the question's
    day of that month, a window one day wide)."""
    june = window("Where did Gael live in June 2025?", AT)
    assert june is not None
    assert (june.centre.year, june.centre.month, june.centre.day, june.spread_days) == (
        2025,
        6,
        15,
        15.0,
    )


@pytest.mark.parametrize(
    ("question", "at", "centre"),
    [
        ("Which part of town was I in last spring?", AT, datetime(2025, 4, 15)),
        # in April, "last spring" is the one before: this one is not over
        ("Which part of town was I in last spring?", AT.replace(month=4), datetime(2024, 4, 15)),
        ("What did we do this summer?", AT, datetime(2025, 7, 15)),
        ("Where did I live in the winter of 2023?", AT, datetime(2023, 1, 15)),
        ("Who was I seeing in autumn 2024?", AT, datetime(2024, 10, 15)),
        ("What did I cook during the fall?", AT, datetime(2025, 10, 15)),  # the one begun
    ],
)
def test_a_season_is_its_three_months(question: str, at: datetime, centre: datetime) -> None:
    w = window(question, at)
    assert w is not None and w.centre == centre.replace(tzinfo=UTC) and w.spread_days == 45.0


@pytest.mark.parametrize(
    "question", ["What about the summer house?", "Did I have a fall last week?", "Spring rolls?"]
)
def test_a_season_word_that_names_no_time_opens_no_season(question: str) -> None:
    w = window(question, AT)
    assert w is None or w.spread_days != 45.0


def test_this_season_not_yet_begun_is_no_window() -> None:
    assert window("What will we do this summer?", datetime(2025, 4, 20, tzinfo=UTC)) is None


@pytest.mark.parametrize(
    ("question", "then"),
    [
        ("Where did I live in March?", datetime(2025, 3, 15, tzinfo=UTC)),
        ("Who was I seeing five months ago?", datetime(2025, 5, 20, 12, tzinfo=UTC)),
        ("Which part of town was I in last spring?", datetime(2025, 4, 15, tzinfo=UTC)),
    ],
)
def test_a_question_about_a_past_time_looks_back_to_it(question: str, then: datetime) -> None:
    back = looked_back(question, AT, 7.0)
    assert back is not None and back.centre == then


@pytest.mark.parametrize(
    "question",
    [
        "Where do I live?",  # no time
        "When did I move, in March?",  # asks for a time
        "What have I cooked since March?",  # a time that opens a span: not a moment
        "Where did I live before June 2025?",
        "What happened between March and May?",
        "What did I eat yesterday?",  # its window reaches the question's own time
        "What is planned for next month?",
    ],
)
def test_a_question_not_about_one_past_time_does_not_look_back(question: str) -> None:
    assert looked_back(question, AT, 7.0) is None
