"""Stage 5, prune: entities nothing refers to any more, and retired records past their
retention. The run report is assembled by the runner from every stage's findings."""

from __future__ import annotations

from datetime import timedelta

from memvault.changes.workspace import Workspace
from memvault.config import ConsolidateSettings


def prune(ws: Workspace, s: ConsolidateSettings) -> dict[str, int]:
    cutoff = ws.now - timedelta(days=s.retired_retention_days)
    retired = 0
    why = f"retired {{}}, past the {s.retired_retention_days:g}-day retention"
    for e in sorted(ws.episodes.values(), key=lambda r: r.id):
        if e.expired_at is not None and e.expired_at <= cutoff and not e.permanent:
            ws.delete_episode(e, "prune.retired", why.format(e.expired_at.date()), certainty=0.95)
            retired += 1
    for f in sorted(ws.facts.values(), key=lambda r: r.id):
        if f.expired_at is not None and f.expired_at <= cutoff:
            ws.delete(f, "prune.retired", why.format(f.expired_at.date()), certainty=0.95)
            retired += 1
    used = {e for ids in ws.mentions.values() for e in ids}
    for f in ws.facts.values():
        used.add(f.subject_id)
        if f.object_id:
            used.add(f.object_id)
    orphans = 0
    for entity in sorted(ws.entities.values(), key=lambda e: e.id):
        if entity.id not in used:
            ws.delete(
                entity, "prune.orphan_entity", "no episode or fact refers to it", certainty=0.95
            )
            orphans += 1
    return {"retired": retired, "orphan_entities": orphans}
