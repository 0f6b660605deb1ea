"""The persona layers' records: attitudes (how the person likes things done) and skills (how
well they do them). Pure data and pure rules of time; no I/O.

An attitude's conflict rule differs from a fact's: a changed preference starts a new
version in its chain and the old one stays (``superseded_at``), answerable as history and
as-of; without new evidence its confidence decays, and below a floor it stops counting as
current without being deleted. A skill's level follows its experience, which fades with a
half-life when the skill goes unused.
"""

from __future__ import annotations

import math
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memvault.kg.model import NAMESPACE_PATTERN, new_id


class Category(StrEnum):
    WRITING_STYLE = "writing_style"
    TECH_CHOICE = "tech_choice"
    DESIGN_PRINCIPLE = "design_principle"
    PACE = "pace"
    AESTHETIC = "aesthetic"
    COMMUNICATION = "communication"
    TOOLING = "tooling"
    RISK = "risk"
    LEARNING = "learning"
    COLLABORATION = "collaboration"


LIVE = "live"  # the status of a persona document in use (an undone creation: "undone")
Level = Literal["L1", "L2", "L3"]
LEVELS: tuple[Level, ...] = ("L1", "L2", "L3")
LEVEL_NAMES = {"L1": "exposure", "L2": "competent", "L3": "generative"}
UseKind = Literal["read", "do", "teach", "build"]
USE_KINDS: tuple[UseKind, ...] = ("read", "do", "teach", "build")


class Evidence(BaseModel):
    model_config = ConfigDict(extra="forbid")

    at: datetime
    episode_id: str | None = None
    session_id: str | None = None
    kind: UseKind | None = None  # skills: what the person did with it
    xp: float = 0.0  # skills: experience this use added


def _finite_unit(v: float, name: str) -> float:
    if not math.isfinite(v) or not 0.0 <= v <= 1.0:
        raise ValueError(f"{name} must be a number between 0 and 1, got {v!r}")
    return v


class Attitude(BaseModel):
    """One version of a preference. Versions of one chain (category, topic, context) follow
    each other; the newest not superseded is the current one if its confidence holds."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str = Field(default_factory=new_id)
    namespace: str = Field(pattern=NAMESPACE_PATTERN)
    category: Category
    statement: str = Field(min_length=1, max_length=500)
    topic: str = Field(default="", max_length=200, description="What it is about (chain key).")
    context: str | None = Field(default=None, max_length=100, description="e.g. 'in chat'.")
    polarity: Literal[1, -1] = 1  # prefers (1) or avoids (-1)
    confidence: float = Field(default=0.6)
    evidence: list[Evidence] = Field(default_factory=list)
    first_seen: datetime
    last_corroborated: datetime
    superseded_at: datetime | None = None
    superseded_by: str | None = None
    version: int = Field(default=1, ge=1)

    @field_validator("confidence")
    @classmethod
    def _confidence(cls, v: float) -> float:
        return _finite_unit(v, "confidence")

    @field_validator("statement")
    @classmethod
    def _statement(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("statement is empty")
        return v.strip()

    @property
    def chain(self) -> tuple[str, str, str]:
        return (self.category.value, self.topic, self.context or "")

    def last_evidence_at(self, at: datetime) -> datetime | None:
        seen = [e.at for e in self.evidence if e.at <= at]
        return max(seen) if seen else (self.first_seen if self.first_seen <= at else None)

    def effective_confidence(self, at: datetime, decay_per_day: float) -> float:
        """confidence × exp(−λ·days since the last evidence at ``at``)."""
        last = self.last_evidence_at(at) or self.first_seen
        days = max((at - last).total_seconds() / 86400.0, 0.0)
        return self.confidence * math.exp(-decay_per_day * days)

    def held_at(self, at: datetime) -> bool:
        """A version of the chain at ``at`` (seen by then, not yet superseded)."""
        return self.first_seen <= at and (self.superseded_at is None or at < self.superseded_at)


class Skill(BaseModel):
    """A skill and the uses that built it; its level is read at a time (:func:`level_at`)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str = Field(description="The normalised name.")
    namespace: str = Field(pattern=NAMESPACE_PATTERN)
    name: str = Field(min_length=1, max_length=100)
    evidence: list[Evidence] = Field(default_factory=list)
    first_seen: datetime
    last_used: datetime

    def xp_at(self, at: datetime, half_life_days: float) -> float:
        """Experience at ``at``: each use's points, halved every ``half_life_days`` since."""
        total = 0.0
        for e in self.evidence:
            if e.at <= at:
                days = (at - e.at).total_seconds() / 86400.0
                total += e.xp * 0.5 ** (days / half_life_days)
        return total


def skill_key(name: str) -> str:
    return " ".join("".join(c if c.isalnum() or c in "+#." else " " for c in name.lower()).split())


def level_for(xp: float, competent: float, generative: float) -> Level:
    """L3 at ``generative`` points, L2 at ``competent``, else L1: once exposed, always L1."""
    if xp >= generative:
        return "L3"
    return "L2" if xp >= competent else "L1"


def as_json(record: BaseModel) -> dict[str, Any]:
    return record.model_dump(mode="json")
