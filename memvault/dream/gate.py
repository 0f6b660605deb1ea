"""Whether a namespace may dream now: enough time AND enough sessions written since the last
dream (by when the vault learned them, so an imported history counts; a day of memories
written without a session counts as one: a vault fed by tools that name no session dreams
too). Pure; the state it reads lives in the coordination store."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memvault.config import GateSettings


def state_key(namespace: str) -> str:
    """The coordination key of a namespace's dream state (last run, watermark)."""
    return f"dream:{namespace}"


@dataclass(frozen=True)
class GateDecision:
    open: bool
    reasons: list[str] = field(default_factory=list)  # why it is closed (empty when open)
    forced: bool = False


def decide(
    *,
    last_dream_at: datetime | None,
    sessions_since: int,
    now: datetime,
    days_without_session: int = 0,
    settings: GateSettings,
    force: bool = False,
) -> GateDecision:
    reasons = []
    if last_dream_at is not None:
        hours = (now - last_dream_at).total_seconds() / 3600
        if hours <= settings.min_hours:
            reasons.append(
                f"last dream was {hours:.1f} h ago; the gate needs more than "
                f"{settings.min_hours:g} h"
            )
    if sessions_since + days_without_session < settings.min_sessions:
        days = (
            f" and {days_without_session} day(s) of memories without a session"
            if days_without_session
            else ""
        )
        reasons.append(
            f"{sessions_since} session(s){days} since the last dream; the gate needs "
            f"{settings.min_sessions}"
        )
    if force:
        return GateDecision(open=True, reasons=reasons, forced=bool(reasons))
    return GateDecision(open=not reasons, reasons=reasons)
