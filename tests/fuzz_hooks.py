"""Schemathesis hooks for the API fuzz run (``SCHEMATHESIS_HOOKS=tests.fuzz_hooks``): every
``date-time`` field also gets dates at the edge of time, in offsets that push them past
datetime's range when converted to UTC (they once crashed the API with a plain-text 500)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import schemathesis
from hypothesis import strategies as st

EDGES = [
    "0001-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59-01:00",
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
    "0100-01-01T00:00:00Z",
    "8999-12-31T23:59:59Z",
]
_OFFSETS = [
    UTC,
    timezone(timedelta(hours=1)),
    timezone(timedelta(hours=-1)),
    timezone(timedelta(hours=14)),
]

schemathesis.openapi.format(
    "date-time",
    st.one_of(
        st.sampled_from(EDGES),
        st.datetimes(
            min_value=datetime(1, 1, 2),
            max_value=datetime(9999, 12, 30),
            timezones=st.sampled_from(_OFFSETS),
        ).map(datetime.isoformat),
    ),
)
