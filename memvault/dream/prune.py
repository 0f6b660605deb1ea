"""Stage 5, prune: entities nothing refers to any more. The run report is assembled by the
runner from every stage's findings.

Retired records (merged, culled, retired with their source file) are never deleted: they
are what as-of reads and ``facts --history`` answer, and a merged episode's own words stay
findable. The background demotes, digests, tiers and links; only an explicit forget erases.
"""

from __future__ import annotations

from memvault.changes.workspace import Workspace


def prune(ws: Workspace) -> dict[str, int]:
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
    return {"orphan_entities": orphans}
