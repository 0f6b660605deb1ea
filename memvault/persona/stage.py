"""The dream's persona stage: attitudes and skill uses found in the episodes written since the
last dream (the LLM port, batched; offline, the same rules as the write path), proposed as
changes of kinds ``attitude`` and ``skill``. Their ops start with ``persona.``, so routing
sends every one to review (a sensitive kind); approved, they apply, journal and undo like any
other change. What the write path already recorded from the same episode is not proposed
again (evidence counts once)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from memvault.changes.workspace import Workspace
from memvault.config import PersonaSettings
from memvault.errors import InvalidInputError
from memvault.kg.persona import Attitude, Category, Evidence, Skill, skill_key
from memvault.language.person import is_assistant
from memvault.llm.port import LLM
from memvault.llm.prompts import persona_v1
from memvault.persona.layer import Proposal, plan_skill_use, plan_upsert, use_xp
from memvault.persona.rules import topic_of

BATCH = 20
CERTAINTY = 0.7  # model or rule readings of a person: a human confirms them


def _diff(before: Attitude | Skill, after: Attitude | Skill) -> dict[str, Any]:
    b, a = before.model_dump(), after.model_dump()
    return {k: getattr(after, k) for k in a if a[k] != b[k]}


def propose_persona(
    ws: Workspace, new_ids: Sequence[str], llm: LLM, s: PersonaSettings
) -> dict[str, Any]:
    episodes = [
        ws.episodes[i]
        for i in new_ids
        if i in ws.episodes and not is_assistant(ws.episodes[i].speaker)
    ]
    counts: Counter[str] = Counter()
    calls = 0
    categories = [c.value for c in Category]
    for start in range(0, len(episodes), BATCH):
        chunk = episodes[start : start + BATCH]
        found = llm.complete(
            persona_v1(
                [{"id": e.id, "speaker": e.speaker, "text": e.content} for e in chunk],
                categories,
            ),
            call_site="dream.persona",
        )
        calls += 1
        by_id = {e.id: e for e in chunk}
        for fa in found.attitudes:
            e = by_id.get(fa.episode_id)
            if e is None or fa.category not in categories or not fa.statement.strip():
                counts["invalid"] += 1
                continue
            ev = Evidence(at=e.occurred_at, episode_id=e.id, session_id=e.session_id)
            p = Proposal(
                category=Category(fa.category),
                statement=" ".join(fa.statement.split())[:500],
                topic=topic_of(fa.statement),
                context=fa.context,
                polarity=-1 if fa.polarity < 0 else 1,
                evidence=ev,
            )
            result = plan_upsert(list(ws.attitudes.values()), p, ws.namespace, ws.now, s)
            group = f"persona:{e.id}:{p.topic}"
            for before, after in result.changes:
                why = f"{result.action}: '{p.statement}' ({p.category.value}), from {e.id}"
                if before is None:
                    ws.create(after, "persona.attitude", why, certainty=CERTAINTY, group=group)
                else:
                    ws.update(
                        before,
                        f"persona.attitude.{result.action}",
                        why,
                        certainty=CERTAINTY,
                        group=group,
                        **_diff(before, after),
                    )
            counts[f"attitude_{result.action}"] += 1
        for fs in found.skills:
            e = by_id.get(fs.episode_id)
            try:
                use_xp(fs.kind, s)
            except InvalidInputError:
                e = None  # a kind of use the model made up
            if e is None or not skill_key(fs.name):
                counts["invalid"] += 1
                continue
            ev = Evidence(at=e.occurred_at, episode_id=e.id, session_id=e.session_id)
            existing = ws.skills.get(skill_key(fs.name))
            used = plan_skill_use(existing, fs.name, fs.kind, ev, ws.namespace, s)
            if used is None:
                counts["skill_unchanged"] += 1
                continue
            why = f"{fs.kind} {fs.name}, from {e.id}"
            if existing is None:
                ws.create(used, "persona.skill", why, certainty=CERTAINTY)
            else:
                ws.update(
                    existing,
                    "persona.skill.use",
                    why,
                    certainty=CERTAINTY,
                    **_diff(existing, used),
                )
            counts["skill_uses"] += 1
    return {"episodes_read": len(episodes), "model_calls": calls, **dict(sorted(counts.items()))}
