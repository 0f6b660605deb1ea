"""Stage 1, orient: what is new since the last dream, and how sessions are shaped."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from memvault.changes.workspace import Workspace


def orient(
    ws: Workspace, ids: Mapping[str, Sequence[str]], deleted: Sequence[tuple[str, str]]
) -> dict[str, Any]:
    """``ids``: the records changed since the last dream, per kind (the workspace holds
    them, so they are not read twice)."""
    sizes = [s.episode_count for s in ws.sessions.values()]
    changed = [ws.episodes[i] for i in ids["episode"] if i in ws.episodes]
    new_sessions = {e.session_id for e in changed if e.session_id}
    # memories written without a session, by the days (UTC) they happened on: the gate
    # counts each such day as a session (memvault.dream.gate)
    loose_days = {e.occurred_at.date() for e in changed if not e.session_id}
    return {
        "new": {
            "episodes": len(ids["episode"]),
            "facts": len(ids["fact"]),
            "entities": len(ids["entity"]),
            "sessions": len(new_sessions),
            "days_without_session": len(loose_days),
            "deleted": len(deleted),
        },
        "totals": {
            "episodes": len(ws.episodes),
            "facts": len(ws.facts),
            "live_facts": len(ws.live_facts()),
            "entities": len(ws.entities),
            "sessions": len(ws.sessions),
        },
        "sessions": {
            "count": len(sizes),
            "mean_episodes": round(statistics.fmean(sizes), 3) if sizes else 0.0,
            "variance_episodes": round(statistics.pvariance(sizes), 3) if sizes else 0.0,
            "max_episodes": max(sizes, default=0),
        },
        "new_episode_ids": sorted(ids["episode"]),
    }
