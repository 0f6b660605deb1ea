"""When a question points: a time expression in it ("about two months ago", "last week",
"in March", "on 3 May 2025") resolved against the question's own time into a soft window,
a centre and a spread in days. Recall favours memories from then and still returns others
(a factor, never a filter).

dateparser reads the expression (a maintained library, imported on first use: about 0.4 s,
and only for questions that hold a word of time at all). Its search also reads words that
merely can be dates ("second", "may", "march" as a verb), so a found expression counts only
when it holds a unit, a month or day name, a number or "yesterday"/"ago". The spread grows
with the distance: "yesterday" means that day, "about five months ago" a few weeks either
side. A season ("last spring", "the summer of 2024") is its three months, as the northern
hemisphere has them. ``looked_back``: the time a question about the past asks about, for
recall to judge what was current as of then.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
_DAYS = "monday tuesday wednesday thursday friday saturday sunday"
MONTHS_AND_DAYS = frozenset(_MONTHS.split()) | frozenset(_DAYS.split())
_CUE = re.compile(
    rf"\b(?:ago|yesterday|last|days?|weeks?|months?|years?|spring|summer|autumn|fall|winter|"
    rf"{'|'.join(_MONTHS.split())}|"
    rf"{'|'.join(_DAYS.split())}|\d{{4}}|\d{{1,2}}/\d{{1,2}})\b",
    re.IGNORECASE,
)
_UNIT_DAYS = (("year", 365.0), ("month", 30.0), ("week", 7.0))
_YEAR = re.compile(r"\b\d{4}\b")
_MONTH = re.compile(rf"\b(?:{'|'.join(_MONTHS.split())})\b", re.IGNORECASE)
_search: Any = None


@dataclass(frozen=True, slots=True)
class Window:
    centre: datetime
    spread_days: float
    said: str  # the words of the question it was read from

    def weight(self, when: datetime) -> float:
        """1 at the centre, about 0.6 one spread away, near 0 three spreads away."""
        days = (when - self.centre).total_seconds() / 86400.0
        return math.exp(-0.5 * (days / self.spread_days) ** 2)

    def meets(self, other: Window) -> float:
        """How well another window (the time a memory names) falls in this one: as
        ``weight`` of its centre, with both spreads (1 when they share a centre)."""
        days = (other.centre - self.centre).total_seconds() / 86400.0
        return math.exp(-0.5 * days**2 / (self.spread_days**2 + other.spread_days**2))


_ORDINAL = {"first": 4, "second": 11, "third": 18, "fourth": 25, "last": -4}
_WEEK_OF = re.compile(
    rf"\b(first|second|third|fourth|last)\s+week(?:end)?\s+(?:of|in)\s+"
    rf"({'|'.join(_MONTHS.split()[:12])})(?:,?\s+(\d{{4}}))?",
    re.IGNORECASE,
)


def _week_of(question: str, base: datetime, least_days: float) -> Window | None:
    """ "the second week of November", "the last weekend of August 2023": that week of that
    month (the latest such month not after ``base`` when no year is said)."""
    m = _WEEK_OF.search(question)
    if m is None:
        return None
    month = _MONTHS.split().index(m.group(2).lower()) + 1
    year = int(m.group(3)) if m.group(3) else base.year - (month > base.month)
    day = _ORDINAL[m.group(1).lower()]
    if day < 0:  # the last week: four days before the month's end
        nxt = datetime(year + (month == 12), month % 12 + 1, 1)
        centre = nxt - timedelta(days=-day)
    else:
        centre = datetime(year, month, day)
    if centre > base + timedelta(days=1):
        return None
    return Window(centre.replace(tzinfo=UTC), max(3.5, least_days), m.group(0))


# a season, as the northern hemisphere has it: its middle month (winter's is January)
_SEASONS = {"spring": 4, "summer": 7, "autumn": 10, "fall": 10, "winter": 1}
_SEASON = re.compile(
    r"\b(?:(last|this|past)\s+)?(spring|summer|autumn|fall|winter)\b(?:\s+(?:of\s+)?(\d{4}))?",
    re.IGNORECASE,
)


def _season(question: str, base: datetime) -> Window | None:
    """ "last spring", "this summer", "the winter of 2023", "in autumn 2024": that season's
    three months (a spread of about 45 days around its middle month's 15th). "Last" is
    the latest one over before ``base``, "this" this year's, a bare one the latest begun by
    then; a year names the season of that year (winter: the one its January is in). None
    for one not begun yet, or a season word with none of these ("a fall", "the summer
    house")."""
    m = _SEASON.search(question)
    if m is None or not (
        m.group(1)
        or m.group(3)
        or re.search(
            rf"\b(?:in|during|over|through)\s+(?:the\s+)?{m.group(2)}\b", question, re.IGNORECASE
        )
    ):
        return None
    month = _SEASONS[m.group(2).lower()]
    which = (m.group(1) or "").lower()
    if m.group(3):
        year = int(m.group(3))
    elif which == "this":  # this year's (this winter: the one whose January is next)
        year = base.year + (month == 1 and base.month == 12)
    else:
        year = base.year + 1
        while True:  # the latest such season begun (or, for "last", over) by base
            centre = datetime(year, month, 15)
            begun = centre - timedelta(days=45) <= base
            over = centre + timedelta(days=45) <= base
            if over if which in ("last", "past") else begun:
                break
            year -= 1
    centre = datetime(year, month, 15)
    if centre - timedelta(days=45) > base:
        return None
    return Window(centre.replace(tzinfo=UTC), 45.0, m.group(0))


_ASKS_WHEN = re.compile(
    r"^\W*(?:(?:since\s+)?when|how\s+long\s+ago|(?:what|which)\s+(?:date|day|month|year))\b",
    re.IGNORECASE,
)


def asks_when(question: str) -> bool:
    """The question asks for a time: it opens with "when", "since when", "how long ago",
    "what / which date, day, month or year" (an interrogative, not "what did I eat when I
    was in Rome?")."""
    return _ASKS_WHEN.search(question) is not None


@lru_cache(maxsize=256)
def window(question: str, at: datetime, least_days: float = 1.0) -> Window | None:
    """The window the question's first time expression points at, seen from ``at``; None
    when it names no time (or only one after ``at``). ``least_days``: the narrowest spread,
    for a day or a week named (people tell of a day days after it, or before it happens).
    "Between" two dates: the span between them."""
    if not _CUE.search(question):
        return None
    base = at.astimezone(UTC).replace(tzinfo=None)
    if (week := _week_of(question, base, least_days)) is not None:
        return week
    if (season := _season(question, base)) is not None:
        return season
    found = _searcher()(
        question,
        languages=["en"],
        settings={"RELATIVE_BASE": base, "PREFER_DATES_FROM": "past"},
    )
    dated = [
        (said, when) for said, when in found or [] if _CUE.search(said) and re.search(r"\d", said)
    ]
    if re.search(r"\bbetween\b", question, re.IGNORECASE) and len(dated) >= 2:
        (said_a, a), (said_b, b) = sorted(dated[:2], key=lambda x: x[1])
        if b <= base + timedelta(days=1):
            half = max((b - a).total_seconds() / 86400.0 / 2, least_days)
            return Window((a + (b - a) / 2).replace(tzinfo=UTC), half, f"{said_a} – {said_b}")
    for said, when in found or []:
        if not _CUE.search(said) or when > base + timedelta(days=1):
            continue
        unit = next((days for word, days in _UNIT_DAYS if word in said.lower()), 1.0)
        month = _MONTH.search(said)
        if month and not re.search(r"\d", _YEAR.sub("", said)):
            if not month.group()[0].isupper():
                continue  # "may", "march": more often a verb than a month in a question
            when, unit = when.replace(day=15), 30.0  # "in March (2025)": the whole month
        elif re.fullmatch(r"\D*\d{4}\D*", said) and not month:
            when, unit = when.replace(month=7, day=1), 365.0  # "in 2022": the whole year
        distance = max((base - when).total_seconds() / 86400.0, 0.0)
        spread = max(unit / 2, least_days)
        if re.search(r"\b(?:ago|last|yesterday)\b", said, re.IGNORECASE):
            spread += 0.15 * distance  # "about five months ago" is vaguer than "yesterday"
        return Window(when.replace(tzinfo=UTC), spread, said)
    return None


_OPEN_ENDED = re.compile(r"\b(?:since|after|from|until|till|before|between)\s+(?:\w+\s+)?$")


def looked_back(question: str, at: datetime, least_days: float = 1.0) -> Window | None:
    """The time a question about the past points at ("Where did I live in March?", "Who
    was I seeing five months ago?"): its window (``centre``: then), when the whole window
    lies before ``at``. None for a question asking when, one naming no time or a time to come,
    and a time that opens or closes a span ("since March", "before June", "between A and
    B"): what was true then is not what it asks."""
    if asks_when(question):
        return None
    found = window(question, at, least_days)
    if found is None or found.centre + timedelta(days=found.spread_days) > at:
        return None
    head = question[: question.find(found.said)] if found.said in question else ""
    if _OPEN_ENDED.search(head.lower()) or "–" in found.said:
        return None
    return found


def _searcher() -> Any:
    global _search
    if _search is None:
        from dateparser.search import search_dates

        _search = search_dates
    return _search
