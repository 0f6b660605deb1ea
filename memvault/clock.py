"""Injected time. Every operation takes ``now`` from a clock so replays, tests and dreams
are deterministic; the default is the wall clock in UTC."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Protocol

from pydantic import AfterValidator

from memvault.errors import DateRangeError

# Centuries inside datetime's range at each end: converting any offset to UTC and adding the
# days recall and the dream reason with (half-lives, snoozes, retention windows) never overflow.
EARLIEST = datetime(100, 1, 1, tzinfo=UTC)
LATEST = datetime(8999, 12, 31, 23, 59, 59, tzinfo=UTC)
RANGE_TEXT = "between 0100-01-01 and 8999-12-31 (UTC)"


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class FixedClock:
    """A clock that only moves when told to: for tests, replays and benchmarks."""

    def __init__(self, at: datetime):
        self._at = ensure_utc(at)

    def now(self) -> datetime:
        return self._at

    def set(self, at: datetime) -> None:
        self._at = ensure_utc(at)


def ensure_utc(value: datetime, field: str | None = None) -> datetime:
    """Naive datetimes are read as UTC; aware ones are converted to UTC. A date outside
    :data:`EARLIEST`..:data:`LATEST` raises :class:`DateRangeError` naming ``field``."""
    try:
        utc = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except OverflowError:
        raise DateRangeError(value, field, RANGE_TEXT) from None
    if not EARLIEST <= utc <= LATEST:
        raise DateRangeError(value, field, RANGE_TEXT)
    return utc


def _utc(value: datetime) -> datetime:
    return ensure_utc(value)


# a pydantic field type: any ISO date in, an aware UTC datetime inside the range out
UtcDatetime = Annotated[datetime, AfterValidator(_utc)]


def to_epoch(value: datetime | None) -> float | None:
    return None if value is None else ensure_utc(value).timestamp()


def from_epoch(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)
