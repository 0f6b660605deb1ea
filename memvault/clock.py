"""Injected time. Every operation takes ``now`` from a clock so replays, tests and dreams
are deterministic; the default is the wall clock in UTC."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol


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


def ensure_utc(value: datetime) -> datetime:
    """Naive datetimes are read as UTC; aware ones are converted to UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def to_epoch(value: datetime | None) -> float | None:
    return None if value is None else ensure_utc(value).timestamp()


def from_epoch(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)
