"""The persona layers as one service the SDK, the CLI and the API share: validated direct
writes (a caller's own upserts and skill uses, and the write path's rules), and reads at a
time. Changes the dream proposes go through the changes layer instead (review, journal,
undo): :mod:`memvault.persona.stage`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memvault.config import PersonaSettings
from memvault.errors import InvalidInputError, NotFoundError
from memvault.ingest.normalize import normalize_content
from memvault.kg.model import Episode
from memvault.kg.persona import LEVELS, Attitude, Category, Evidence, Skill, skill_key
from memvault.kg.store import Doc, Store
from memvault.language.person import is_assistant
from memvault.llm.workers import run_pure
from memvault.persona import rules
from memvault.persona.layer import (
    AttitudeView,
    PersonaStore,
    Proposal,
    check_level,
    doc,
    plan_skill_use,
    plan_upsert,
    read_attitudes,
    read_skill,
)


def category(value: str | Category) -> Category:
    try:
        return Category(value)
    except ValueError:
        raise InvalidInputError(
            f"unknown category {value!r}",
            field="category",
            hint="one of " + ", ".join(c.value for c in Category),
        ) from None


def _confidence(value: float | None) -> float | None:
    if value is None:
        return None
    if not isinstance(value, int | float) or not math.isfinite(value) or not 0 <= value <= 1:
        raise InvalidInputError(
            f"must be a number between 0 and 1, got {value!r}", field="confidence"
        )
    return float(value)


class PersonaService:
    def __init__(self, store: Store, settings: PersonaSettings, *, workers: int = 1):
        """``workers`` > 1: the rules read a large batch of episodes being written in that
        many rule worker processes (memvault.llm.workers), as the extraction does."""
        self.store, self.s, self.workers = store, settings, workers
        self.docs = PersonaStore(store)

    def _evidence(self, ns: str, episode_id: str | None, at: datetime) -> Evidence:
        if episode_id is None:
            return Evidence(at=at)
        found = self.store.get_episodes(ns, [episode_id])
        if not found:
            raise NotFoundError("episode", episode_id, ns)
        e = found[0]
        return Evidence(at=at, episode_id=e.id, session_id=e.session_id)

    # -- writes -------------------------------------------------------------------------------
    def upsert_attitude(
        self,
        ns: str,
        category_: str | Category,
        statement: str,
        *,
        at: datetime,
        topic: str | None = None,
        context: str | None = None,
        polarity: int = 1,
        confidence: float | None = None,
        episode_id: str | None = None,
    ) -> dict[str, Any]:
        cat = category(category_)
        statement, _ = normalize_content(statement, limit=500, field="statement")
        if polarity not in (1, -1):
            raise InvalidInputError(f"must be 1 or -1, got {polarity!r}", field="polarity")
        p = Proposal(
            category=cat,
            statement=" ".join(statement.split()),
            topic=rules.topic_of(topic) if topic else "",
            context=context.strip() or None if context else None,
            polarity=polarity,
            confidence=_confidence(confidence),
            evidence=self._evidence(ns, episode_id, at),
        )
        result = plan_upsert(self.docs.attitudes(ns), p, ns, at, self.s)
        self.docs.save(ns, [after for _, after in result.changes])
        current = result.attitude
        return {
            "action": result.action,
            "attitude": current.model_dump(mode="json") if current else None,
        }

    def record_skill_use(
        self,
        ns: str,
        skill: str,
        *,
        kind: str = "do",
        at: datetime,
        episode_id: str | None = None,
    ) -> dict[str, Any]:
        skill, _ = normalize_content(skill, limit=100, field="skill")
        evidence = self._evidence(ns, episode_id, at)
        existing = self.docs.skills(ns).get(skill_key(skill))
        after = plan_skill_use(existing, skill, kind, evidence, ns, self.s)
        if after is not None:
            self.docs.save(ns, [after])
        final = after or existing
        assert final is not None
        return {"counted": after is not None, **read_skill(final, at, self.s)}

    def docs_for(self, ns: str, episodes: Sequence[Episode]) -> list[Doc]:
        """What the rules find in episodes about to be written, as documents to write in
        the same transaction (the write path's hook: no second commit)."""
        if not any(rules.might_speak_of_self(e.content) for e in episodes):
            return []
        return [doc(r) for r in self.read_episodes(ns, episodes)[0]]

    def read_episodes(
        self, ns: str, episodes: Sequence[Episode]
    ) -> tuple[list[Attitude | Skill], dict[str, int]]:
        """The rules over episodes: the attitude and skill records they change, and counts."""
        own = [e for e in episodes if not is_assistant(e.speaker)]  # not the agent's words
        texts = [{"text": e.content} for e in own]
        read = run_pure(rules.read, texts, self.workers) or [rules.read(t) for t in texts]
        found: list[tuple[Episode, list[rules.AttitudeDraft], list[rules.SkillDraft]]] = []
        for e, answer in zip(own, read, strict=True):
            if isinstance(answer, Exception):
                raise answer  # what the rules would have raised here
            drafts, uses = answer
            if drafts or uses:
                found.append((e, drafts, uses))
        counts = {"attitudes": 0, "skill_uses": 0}
        if not found:
            return [], counts
        attitudes = self.docs.attitudes(ns)
        skills = self.docs.skills(ns)
        changed: dict[str, Attitude | Skill] = {}
        for e, drafts, uses in found:
            ev = Evidence(at=e.occurred_at, episode_id=e.id, session_id=e.session_id)
            for d in drafts:
                p = Proposal(d.category, d.statement, d.topic, d.context, d.polarity, None, ev)
                result = plan_upsert(attitudes, p, ns, e.occurred_at, self.s)
                for before, version in result.changes:
                    attitudes = [a for a in attitudes if before is None or a.id != before.id]
                    attitudes.append(version)
                    changed[version.id] = version
                counts["attitudes"] += bool(result.changes)
            for u in uses:
                key = skill_key(u.name)
                used = plan_skill_use(skills.get(key), u.name, u.kind, ev, ns, self.s)
                if used is not None:
                    skills[key] = used
                    changed[f"skill:{key}"] = used
                    counts["skill_uses"] += 1
        return list(changed.values()), counts

    # -- reads --------------------------------------------------------------------------------
    def attitudes(
        self,
        ns: str,
        *,
        at: datetime,
        category_: str | Category | None = None,
        history: bool = False,
    ) -> list[dict[str, Any]]:
        cat = category(category_) if category_ is not None else None
        views = read_attitudes(self.docs.attitudes(ns), at, self.s, category=cat, history=history)
        return [v.to_dict() for v in views]

    def current(self, ns: str, at: datetime) -> list[AttitudeView]:
        return read_attitudes(self.docs.attitudes(ns), at, self.s)

    def skills(
        self, ns: str, *, at: datetime, min_level: str | None = None
    ) -> list[dict[str, Any]]:
        floor = check_level(min_level)
        out = [
            read_skill(s, at, self.s) for s in self.docs.skills(ns).values() if s.first_seen <= at
        ]
        if floor:
            out = [s for s in out if LEVELS.index(s["level"]) >= LEVELS.index(floor)]
        return sorted(out, key=lambda s: (-LEVELS.index(s["level"]), -s["xp"], s["name"]))
