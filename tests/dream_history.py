"""Maya's history for the dream tests: a move, a repeated remark, two managers at once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memvault import MemVault

T = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)
LATER = T + timedelta(days=200)


def day(n: int) -> datetime:
    return T + timedelta(days=n)


def seed(vault: MemVault) -> None:
    """Maya moves from Berlin to Lisbon, says one thing twice, and names two managers in
    one breath; six sessions, so the gate opens."""
    turns = [
        (0, "s1", "I live in Berlin and I work at Helio Labs."),
        (20, "s2", "The new espresso machine at work is great."),
        (40, "s3", "My manager is Tobias."),
        (40, "s3", "My manager is Priya."),
        (150, "s4", "I moved to Lisbon last week!"),
        (160, "s5", "I really enjoy surfing in Ericeira on weekends."),
        (170, "s6", "I really enjoy surfing in Ericeira on weekends!"),
    ]
    for offset, session, text in turns:
        vault.write(text, speaker="Maya", session_id=session, now=day(offset))
