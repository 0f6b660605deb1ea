"""Maya's six sessions, the conversation the server-side tests write: she moves from Berlin to
Lisbon, names her manager, says one thing twice."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from memvault import MemVault

SAID = [
    (0, "s1", "I live in Berlin and I work at Helio Labs."),
    (40, "s2", "My manager is Tobias."),
    (150, "s3", "I moved to Lisbon last week!"),
    (160, "s4", "I really enjoy surfing in Ericeira on weekends."),
    (170, "s5", "I really enjoy surfing in Ericeira on weekends!"),
    (175, "s6", "Lunch with Tobias at the harbour."),
]


def items(start: datetime, sessions: int = 6) -> list[dict[str, Any]]:
    """Episodes as the API and ``write_many`` take them."""
    return [
        {
            "content": text,
            "speaker": "Maya",
            "session_id": session,
            "occurred_at": (start + timedelta(days=day)).isoformat(),
        }
        for day, session, text in SAID[:sessions]
    ]


def write(
    vault: MemVault, start: datetime, *, namespace: str | None = None, sessions: int = 6
) -> None:
    """One write per turn, each at its own time (the gate counts sessions since)."""
    for day, session, text in SAID[:sessions]:
        at = start + timedelta(days=day)
        vault.write(text, speaker="Maya", session_id=session, namespace=namespace, now=at)
