"""Maintenance ops over episodes: decay what is stale, boost what is used and confirmed,
prune what no longer matters, and hold back memories that are fetched but never confirmed.

Each op reads the workspace and proposes changes; ``run_maintenance`` runs them in order.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from memvault.changes.workspace import Workspace
from memvault.config import MaintenanceSettings
from memvault.kg.model import Episode, MemoryType
from memvault.recall.scoring import age_days, stickiness_ratio


def last_touched(e: Episode) -> datetime:
    return max(t for t in (e.occurred_at, e.created_at, e.last_accessed, e.last_reinforced_at) if t)


def _live(ws: Workspace) -> list[Episode]:
    return sorted((e for e in ws.episodes.values() if e.expired_at is None), key=lambda e: e.id)


def decay_stale(ws: Workspace, s: MaintenanceSettings) -> int:
    """Typed memories (user, feedback, project, reference) lose importance when nobody
    touches them. Plain episodic turns are left alone: they already age in recall (per-type
    decay) and leave the hot tier through the janitor's TTL; decaying them twice pushed
    LoCoMo recall@10 after a dream from 0.71 to 0.65 (docs/decisions/0003)."""
    n = 0
    for e in _live(ws):
        if e.type == MemoryType.EPISODIC:
            continue
        user = e.type == MemoryType.USER
        days, factor, floor = (
            (s.user_stale_days, s.user_stale_factor, s.user_stale_floor)
            if user
            else (s.stale_days, s.stale_factor, s.stale_floor)
        )
        idle = age_days(last_touched(e), ws.now)
        new = max(e.importance * factor, floor)
        if idle > days and new < e.importance:
            ws.update(
                e,
                "maintenance.decay_stale",
                f"untouched {idle:.0f} days (> {days:g}): importance × {factor:g}",
                certainty=0.95,
                importance=new,
            )
            n += 1
    return n


def confirms(ws: Workspace) -> bool:
    """Whether anything in this namespace was ever confirmed useful (reinforced, or judged
    ``correct``). Without a single confirmation, a fetch count says only how often recall
    showed a memory (an agent that records every hit it was shown), which is evidence neither
    of use nor of stickiness: the ops below that read the ratio then leave memories alone.
    Measured in bench/sticky_feedback.py: without this, a daily dream hid every much-asked
    note of an agent that records access and never confirms (its notes found 1.00 → 0.00)."""
    return any(e.reinforced_count for e in ws.episodes.values())


def boost_active(ws: Workspace, s: MaintenanceSettings) -> int:
    """Used and confirmed: importance up. A memory never confirmed is not boosted, however
    often it was fetched."""
    n = 0
    for e in _live(ws):
        ratio = stickiness_ratio(e.access_count, e.reinforced_count)
        new = min(e.importance * s.boost_factor, 1.0)
        if (
            e.access_count >= s.boost_min_access
            and e.reinforced_count > 0
            and ratio <= s.boost_max_stickiness
            and new > e.importance
        ):
            ws.update(
                e,
                "maintenance.boost_active",
                f"used {e.access_count}×, stickiness {ratio:.1f}: importance × {s.boost_factor:g}",
                certainty=0.95,
                importance=new,
            )
            n += 1
    return n


def decay_unreinforced(ws: Workspace, s: MaintenanceSettings) -> int:
    """Fetched far more often than confirmed, where confirming happens: importance down."""
    n = 0
    if not confirms(ws):
        return 0
    for e in _live(ws):
        ratio = stickiness_ratio(e.access_count, e.reinforced_count)
        if ratio > s.unreinforced_stickiness and e.importance > 0:
            ws.update(
                e,
                "maintenance.decay_unreinforced",
                f"fetched {e.access_count}× but confirmed {e.reinforced_count}× "
                f"(stickiness {ratio:.1f}): importance × {s.unreinforced_factor:g}",
                certainty=0.9,
                importance=e.importance * s.unreinforced_factor,
            )
            n += 1
    return n


def auto_snooze(ws: Workspace, s: MaintenanceSettings) -> int:
    """Fetched very often and almost never confirmed, where confirming happens: hidden from
    recall for ``snooze_days``."""
    n = 0
    if not confirms(ws):
        return 0
    until = ws.now + timedelta(days=s.snooze_days)
    for e in _live(ws):
        ratio = stickiness_ratio(e.access_count, e.reinforced_count)
        snoozed = e.cooldown_until is not None and e.cooldown_until > ws.now
        if e.access_count >= s.snooze_min_access and ratio > s.snooze_stickiness and not snoozed:
            ws.update(
                e,
                "maintenance.auto_snooze",
                f"fetched {e.access_count}×, stickiness {ratio:.1f}: hidden until {until.date()}",
                certainty=0.9,
                cooldown_until=until,
            )
            n += 1
    return n


def prune_irrelevant(
    ws: Workspace, s: MaintenanceSettings, kept: Callable[[Episode], bool] = lambda e: False
) -> int:
    """Delete episodes that matter too little for too long (never permanent ones, nor those
    ``kept`` says are in use). Their entities' mention counts go down with them."""
    n = 0
    for e in _live(ws):
        user = e.type == MemoryType.USER
        floor, days = (
            (s.user_prune_importance, s.user_prune_days)
            if user
            else (s.prune_importance, s.prune_days)
        )
        age = age_days(e.occurred_at, ws.now)
        if e.permanent or e.importance >= floor or age <= days or kept(e):
            continue
        why = f"importance {e.importance:.3f} < {floor:g} and {age:.0f} days old"
        ws.delete_episode(e, "maintenance.prune_irrelevant", why, certainty=0.9, impact="medium")
        n += 1
    return n


def run_maintenance(
    ws: Workspace, s: MaintenanceSettings, kept: Callable[[Episode], bool] = lambda e: False
) -> dict[str, int]:
    """Every op in order; ``kept``: episodes in use (ignited), which the prune never takes."""
    return {
        "decay_stale": decay_stale(ws, s),
        "boost_active": boost_active(ws, s),
        "decay_unreinforced": decay_unreinforced(ws, s),
        "auto_snooze": auto_snooze(ws, s),
        "prune_irrelevant": prune_irrelevant(ws, s, kept),
    }
