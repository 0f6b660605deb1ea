"""The persona layers' rules (pure) and the service that reads and writes them.

- **Upsert an attitude** (:func:`plan_upsert`): a statement that restates a current version
  of its chain (same category, topic words and context; same polarity; the same words)
  corroborates it: confidence up by ``corroborate_step`` of what is left, the evidence
  appended (the same episode twice counts once). One that shares the chain but says
  something else starts a new version: the old one gets ``superseded_at`` and stays. One in
  no chain starts its own.
- **Read** (:func:`read_attitudes`): at a time (now or ``as_of``), a version held then is
  current while its decayed confidence is at or above ``current_floor``, else faded (kept).
- **Skills** (:func:`plan_skill_use`, :func:`read_skill`): each use adds experience by its
  kind; the level is read from the experience left after each use's half-life.

Attitudes and skills are documents of kinds ``attitude`` and ``skill`` (status ``live``; an
undone creation is kept with status ``undone``) in the store, on every backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memvault.config import PersonaSettings
from memvault.errors import InvalidInputError
from memvault.kg.persona import (
    LEVEL_NAMES,
    LEVELS,
    LIVE,
    USE_KINDS,
    Attitude,
    Category,
    Evidence,
    Level,
    Skill,
    as_json,
    level_for,
    skill_key,
)
from memvault.kg.store import Batch, Doc, Store
from memvault.language import clip
from memvault.persona.rules import STATEMENT_MAX, TOPIC_MAX, content_words, topic_of

ATTITUDE, SKILL = "attitude", "skill"


@dataclass
class Proposal:
    """A statement of preference, from the rules, a model or a caller."""

    category: Category
    statement: str
    topic: str = ""
    context: str | None = None
    polarity: int = 1
    confidence: float | None = None
    evidence: Evidence | None = None


@dataclass
class Upsert:
    action: str  # created | corroborated | new_version | unchanged
    changes: list[tuple[Attitude | None, Attitude]] = field(default_factory=list)

    @property
    def attitude(self) -> Attitude | None:
        return self.changes[-1][1] if self.changes else None


def _words(a: Attitude | Proposal) -> list[str]:
    return content_words(a.statement.split(" (")[0] if a.context else a.statement)


def _topic(a: Attitude | Proposal) -> set[str]:
    return set((a.topic or topic_of(a.statement)).split())


def same_chain(a: Attitude, p: Proposal) -> bool:
    return (
        a.category == p.category
        and (a.context or "") == (p.context or "")
        and bool(_topic(a) & _topic(p))
    )


def restates(a: Attitude, p: Proposal) -> bool:
    """Same polarity, the same leading word (what is preferred) and mostly the same words."""
    wa, wp = _words(a), _words(p)
    if a.polarity != p.polarity or not wa or not wp or wa[0] != wp[0]:
        return False
    sa, sp = set(wa), set(wp)
    return len(sa & sp) / len(sa | sp) >= 0.6


def plan_upsert(
    existing: Sequence[Attitude], p: Proposal, namespace: str, at: datetime, s: PersonaSettings
) -> Upsert:
    evidence = p.evidence or Evidence(at=at)
    chain = sorted(
        (a for a in existing if a.superseded_at is None and same_chain(a, p)),
        key=lambda a: (a.first_seen, a.version),
    )
    for a in chain:
        if restates(a, p):
            if evidence.episode_id and any(e.episode_id == evidence.episode_id for e in a.evidence):
                return Upsert("unchanged")
            after = a.model_copy(deep=True)
            after.confidence = min(1.0, a.confidence + s.corroborate_step * (1 - a.confidence))
            after.evidence = [*a.evidence, evidence]
            after.last_corroborated = max(a.last_corroborated, evidence.at)
            return Upsert("corroborated", [(a, after)])
    new = Attitude(
        namespace=namespace,
        category=p.category,
        statement=clip(p.statement, STATEMENT_MAX),
        topic=clip(p.topic, TOPIC_MAX) or topic_of(p.statement),
        context=clip(p.context, 100) if p.context else None,
        polarity=1 if p.polarity >= 0 else -1,
        confidence=s.initial_confidence if p.confidence is None else p.confidence,
        evidence=[evidence],
        first_seen=evidence.at,
        last_corroborated=evidence.at,
        version=max((a.version for a in chain), default=0) + 1,
    )
    changes: list[tuple[Attitude | None, Attitude]] = []
    for a in chain:  # the versions it replaces stay, superseded
        old = a.model_copy(deep=True)
        old.superseded_at, old.superseded_by = evidence.at, new.id
        changes.append((a, old))
    changes.append((None, new))
    return Upsert("new_version" if chain else "created", changes)


@dataclass
class AttitudeView:
    attitude: Attitude
    confidence_now: float
    status: str  # current | faded | superseded

    def to_dict(self) -> dict[str, Any]:
        return {
            **as_json(self.attitude),
            "confidence_now": round(self.confidence_now, 4),
            "status": self.status,
        }


def read_attitudes(
    all_: Sequence[Attitude],
    at: datetime,
    s: PersonaSettings,
    *,
    category: Category | None = None,
    history: bool = False,
) -> list[AttitudeView]:
    out = []
    for a in all_:
        if (category and a.category != category) or a.first_seen > at:
            continue
        conf = a.effective_confidence(at, s.decay_per_day[a.category])
        if a.held_at(at):
            status = "current" if conf >= s.current_floor else "faded"
        else:
            status = "superseded"
        if history or status == "current":
            out.append(AttitudeView(a, conf, status))
    order = {"current": 0, "faded": 1, "superseded": 2}
    return sorted(
        out, key=lambda v: (order[v.status], v.attitude.category.value, -v.confidence_now)
    )


def use_xp(kind: str, s: PersonaSettings) -> float:
    if kind not in USE_KINDS:
        raise InvalidInputError(
            f"unknown kind of use {kind!r}", field="kind", hint="one of " + ", ".join(USE_KINDS)
        )
    return s.use_xp[kind]


def plan_skill_use(
    existing: Skill | None, name: str, kind: str, evidence: Evidence, ns: str, s: PersonaSettings
) -> Skill | None:
    """The skill after this use, or None when this episode already counted this kind."""
    clean = " ".join(name.split())
    if not clean or not skill_key(clean):
        raise InvalidInputError("is empty", field="skill", hint="name the skill, e.g. 'Rust'")
    use = evidence.model_copy(update={"kind": kind, "xp": use_xp(kind, s)})
    if existing is None:
        return Skill(
            id=skill_key(clean),
            namespace=ns,
            name=clean[:100],
            evidence=[use],
            first_seen=use.at,
            last_used=use.at,
        )
    if use.episode_id and any(
        e.episode_id == use.episode_id and e.kind == kind for e in existing.evidence
    ):
        return None
    after = existing.model_copy(deep=True)
    after.evidence = [*existing.evidence, use]
    after.last_used = max(existing.last_used, use.at)
    return after


def read_skill(skill: Skill, at: datetime, s: PersonaSettings) -> dict[str, Any]:
    xp = skill.xp_at(at, s.skill_half_life_days)
    level = level_for(xp, s.competent_xp, s.generative_xp)
    uses = [e for e in skill.evidence if e.at <= at]
    kinds = ", ".join(f"{k} ×{n}" for k in USE_KINDS if (n := sum(1 for e in uses if e.kind == k)))
    idle = max((at - skill.last_used).total_seconds() / 86400.0, 0.0)
    why = (
        f"{LEVEL_NAMES[level]}: {xp:.1f} points now (L2 from {s.competent_xp:g}, L3 from "
        f"{s.generative_xp:g}) from {kinds or 'no use'}; last used {idle:.0f} days ago, "
        f"points halve every {s.skill_half_life_days:g} days"
    )
    return {
        "name": skill.name,
        "level": level,
        "xp": round(xp, 3),
        "last_used": skill.last_used.isoformat(),
        "uses": len(uses),
        "evidence": [e.episode_id for e in uses if e.episode_id],
        "why": why,
    }


def check_level(level: str | None) -> Level | None:
    if level is None:
        return None
    if level not in LEVELS:
        raise InvalidInputError(
            f"unknown level {level!r}", field="level", hint="L1 (exposure), L2, or L3"
        )
    return level


class PersonaStore:
    """The layers' documents in a namespace: read them, write direct changes."""

    def __init__(self, store: Store):
        self.store = store

    def attitudes(self, ns: str) -> list[Attitude]:
        docs = self.store.list_docs(ns, ATTITUDE, status=LIVE, limit=1_000_000)
        return [Attitude.model_validate(d.body) for d in docs]

    def skills(self, ns: str) -> dict[str, Skill]:
        docs = self.store.list_docs(ns, SKILL, status=LIVE, limit=1_000_000)
        return {d.id: Skill.model_validate(d.body) for d in docs}

    def save(self, ns: str, records: Sequence[Attitude | Skill]) -> None:
        if records:
            self.store.apply(Batch(namespace=ns, docs=[doc(r) for r in records]))


def doc(record: Attitude | Skill, status: str = LIVE) -> Doc:
    kind = ATTITUDE if isinstance(record, Attitude) else SKILL
    created = record.first_seen
    return Doc(kind, record.id, as_json(record), status=status, created_at=created)
