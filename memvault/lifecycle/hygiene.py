"""The hygiene janitor: cull facts whose confidence has decayed away, age out persistent
episodic turns, and flag permanent memories nobody has touched in a long time.

- Facts: effective confidence = confidence × 0.5^(days since last reinforced / half-life),
  the half-life stretched by use as in recall; below ``cull_floor`` the fact is retired
  (``expired_at``). ``cull_floor = 0`` disables it.
- Episodic TTL: an episodic episode beyond the newest ``ttl_turns`` of the namespace, or
  (``ttl_operator = "and"``: and) older than ``ttl_days``, is handed to the tiers as due for
  cold (:mod:`memvault.lifecycle.tiers` digests it, unless it is protected); it stays
  recallable.
- Permanent episodes are never deleted; after ``permanent_stale_days`` without access or
  reinforcement they are marked stale (``metadata.stale_since``) for a human to look at.
"""

from __future__ import annotations

from typing import Any

from memvault.changes.workspace import Workspace
from memvault.config import HygieneSettings, RecallSettings
from memvault.kg.model import Fact, MemoryType, Tier, episode_order
from memvault.lifecycle.stickiness import last_touched
from memvault.recall.scoring import age_days, stretch_of


def about_the_person(ws: Workspace, f: Fact) -> bool:
    """A fact drawn from a user-type or permanent memory: the janitor's permanent class."""
    sources = (ws.episodes.get(i) for i in f.source_episode_ids)
    return any(e is not None and (e.permanent or e.type == MemoryType.USER) for e in sources)


def cull_facts(ws: Workspace, s: HygieneSettings, recall: RecallSettings) -> list[str]:
    """Retire (``expired_at``: a change of belief now, never ``invalid_at``) facts whose
    confidence decayed below the floor; as-of reads for earlier times still answer them
    (:meth:`Fact.believed_at`). Facts drawn from the person's own (user-type or permanent)
    memories are never culled: the janitor marks those memories stale instead."""
    if s.cull_floor <= 0 or not s.confidence_decay:
        return []
    culled = []
    for f in sorted(ws.live_facts(), key=lambda f: f.id):
        half_life = recall.fact_half_life_days * stretch_of(f, ws.now, recall)
        effective = f.effective_confidence(ws.now, half_life)
        if effective < s.cull_floor and about_the_person(ws, f):
            continue  # the person's own facts are never aged out (their episodes go stale)
        if effective < s.cull_floor:
            ws.update(
                f,
                "hygiene.cull",
                f"effective confidence {effective:.3f} < cull floor {s.cull_floor:g}",
                certainty=0.9,
                expired_at=ws.now,
            )
            culled.append(f.id)
    return culled


def episodic_ttl(ws: Workspace, s: HygieneSettings) -> list[str]:
    """The hot episodic turns past the TTL: handed to the tiers, not changed here."""
    turns = sorted(
        (
            e
            for e in ws.episodes.values()
            if e.type == MemoryType.EPISODIC
            and e.expired_at is None
            and not e.permanent
            and e.tier == Tier.HOT
        ),
        key=episode_order,  # a session's turns share its time: then their place
        reverse=True,
    )
    aged = []
    for rank, e in enumerate(turns):
        over_count = rank >= s.ttl_turns
        too_old = age_days(e.occurred_at, ws.now) > s.ttl_days
        expired = (over_count or too_old) if s.ttl_operator == "or" else (over_count and too_old)
        if expired:
            aged.append(e.id)
    return aged


def mark_stale_permanent(ws: Workspace, s: HygieneSettings) -> list[str]:
    marked = []
    for e in sorted(ws.episodes.values(), key=lambda e: e.id):
        if not e.permanent or "stale_since" in e.metadata:
            continue
        idle = age_days(last_touched(e), ws.now)
        if idle > s.permanent_stale_days:
            ws.update(
                e,
                "hygiene.mark_stale",
                f"permanent, untouched {idle:.0f} days: marked stale (kept)",
                certainty=0.95,
                metadata={**e.metadata, "stale_since": ws.now.isoformat()},
            )
            marked.append(e.id)
    return marked


def run_janitor(ws: Workspace, s: HygieneSettings, recall: RecallSettings) -> dict[str, Any]:
    """The janitor's snapshot: when it ran and what it did. ``recall``: the cull ages a fact
    exactly as recall's ranking does."""
    if not s.enabled:
        return {"enabled": False}
    return {
        "enabled": True,
        "ran_at": ws.now.isoformat(),
        "culled": cull_facts(ws, s, recall),
        "cold": episodic_ttl(ws, s),
        "marked_stale": mark_stale_permanent(ws, s),
    }
