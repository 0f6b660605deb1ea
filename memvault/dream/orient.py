"""Stage 1, orient: what is new since the last dream, and how sessions are shaped."""

from __future__ import annotations

import statistics
from typing import Any

from memvault.changes.workspace import Workspace
from memvault.kg.store import Changes


def orient(ws: Workspace, changes: Changes) -> dict[str, Any]:
    sizes = [s.episode_count for s in ws.sessions.values()]
    new_sessions = {e.session_id for e in changes.episodes if e.session_id}
    return {
        "new": {
            "episodes": len(changes.episodes),
            "facts": len(changes.facts),
            "entities": len(changes.entities),
            "sessions": len(new_sessions),
            "deleted": len(changes.deleted),
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
        "new_episode_ids": sorted(e.id for e in changes.episodes),
    }
