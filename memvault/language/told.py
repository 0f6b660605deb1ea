"""When a turn says its event happened, seen from when the turn was said: "yesterday", "last
Friday", "two weeks ago", "next month" in a turn written on 19 August put its event on
another day than the turn's own. Recall's time lift reads both (memvault.recall.fusion): a
question about July finds "last month I drove to the coast" said in August.

English relative expressions only, read by one regular expression around each unit word
(microseconds a turn, so it runs at recall on the candidates of a question that names a
time, and writes nothing): ``yesterday``, ``tomorrow``, ``last`` / ``this past`` / ``next`` /
``this coming`` + a weekday, ``weekend``, ``week``, ``month`` or ``year``, and a count of
days, weeks, months or years ``ago`` / ``back`` or ``in`` the future ("a few weeks ago", "in
two months"). Calendar dates in a turn are left to the turn's own time. Each expression gives
a centre and a spread (vaguer the farther it points), as memvault.language.when does for
questions.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from functools import lru_cache

from memvault.language.when import Window

_DAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_COUNTS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a couple of": 2, "a couple": 2, "a few": 3, "few": 3, "several": 4,
}  # fmt: skip
_UNIT = {"day": 1.0, "week": 7.0, "month": 30.0, "year": 365.0}
_COUNT = r"\d{1,2}|" + "|".join(sorted(map(re.escape, _COUNTS), key=len, reverse=True))
_TOLD = re.compile(
    r"\b(?:(?P<near>yesterday|tomorrow)"
    r"|(?P<side>last|this past|next|this coming)\s+"
    rf"(?P<what>{'|'.join(_DAYS)}|weekend|week|month|year)"
    rf"|(?P<n>{_COUNT})\s+(?P<unit>day|week|month|year)s?\s+(?P<ago>ago|back)"
    rf"|in\s+(?P<m>{_COUNT})\s+(?P<later>day|week|month|year)s?\b)\b",
    re.IGNORECASE,
)
_MOST = 4  # expressions read from one turn
_ANCHORS = ("day", "week", "month", "year", "tomorrow")
_KEPT_CHARS = 4096  # turns up to this long are kept for the next recall (4,096 of them)


def told(text: str, said_at: datetime) -> tuple[Window, ...]:
    """The windows the turn's own time expressions point at (at most four), seen from
    ``said_at``; empty when it names none."""
    if len(text) > _KEPT_CHARS:  # a long text is read again, not held in memory
        return _read(text, said_at)
    return _kept(text, said_at)


@lru_cache(maxsize=4096)
def _kept(text: str, said_at: datetime) -> tuple[Window, ...]:
    return _read(text, said_at)


def _read(text: str, said_at: datetime) -> tuple[Window, ...]:
    """Every expression holds a unit ("day" is in "yesterday" and the weekdays); the
    expression is read around each one found, not over the whole text (one alternation
    tried at every word of a long reply cost 0.1 ms a turn)."""
    low, found = text.lower(), {}
    for unit in _ANCHORS:
        at = low.find(unit)
        while at >= 0:
            for m in _TOLD.finditer(text, max(at - 40, 0), at + 30):
                start = m.start()
                if m.end() > at and (start == 0 or not text[start - 1].isalnum()):
                    found[start] = m
            at = low.find(unit, at + len(unit))
    out = [_window(found[start], said_at) for start in sorted(found)]
    return tuple(out[:_MOST])


def _window(m: re.Match[str], at: datetime) -> Window:
    said = m.group(0)
    if m.group("near"):
        sign = -1 if m.group("near").lower() == "yesterday" else 1
        return Window(at + timedelta(days=sign), 1.0, said)
    if m.group("side"):
        sign = 1 if m.group("side").lower() in {"next", "this coming"} else -1
        what = m.group("what").lower()
        if what in _DAYS:
            ahead = (_DAYS.index(what) - at.weekday()) % 7 or 7
            back = (at.weekday() - _DAYS.index(what)) % 7 or 7
            return Window(at + timedelta(days=ahead if sign > 0 else -back), 1.0, said)
        if what == "weekend":
            since = (at.weekday() - 5) % 7  # days since Saturday
            days = 7 - since if sign > 0 else -(since + 7 * (since < 2))
            return Window(at + timedelta(days=days + 0.5), 1.5, said)
        unit = _UNIT[what]
        return Window(at + timedelta(days=sign * unit), unit / 2, said)
    count, unit_word, sign = (
        (m.group("n"), m.group("unit"), -1) if m.group("n") else (m.group("m"), m.group("later"), 1)
    )
    n = int(count) if count.isdigit() else _COUNTS[count.lower()]
    unit = _UNIT[unit_word.lower()]
    return Window(at + timedelta(days=sign * n * unit), unit / 2 + 0.15 * n * unit, said)
