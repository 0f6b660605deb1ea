"""What callers send to the write path, validated before anything is stored."""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from memvault.clock import UtcDatetime
from memvault.kg.model import EntityType, MemoryType, normalize_predicate


class EpisodeIn(BaseModel):
    """One memory to write. Unknown fields are refused so typos do not vanish silently."""

    model_config = ConfigDict(extra="forbid")

    content: str = Field(description="The text; normalised and, past the limit, truncated.")
    type: MemoryType = MemoryType.EPISODIC
    speaker: str | None = Field(default=None, max_length=256)
    session_id: str | None = Field(default=None, min_length=1, max_length=256)
    external_id: str | None = Field(default=None, min_length=1, max_length=256)
    occurred_at: UtcDatetime | None = Field(default=None, description="Default: now.")
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    permanent: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("importance")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError("must be a finite number between 0 and 1")
        return v


class FactIn(BaseModel):
    """A structured fact written directly, with the time it became true."""

    model_config = ConfigDict(extra="forbid")

    subject: str = Field(min_length=1, max_length=256)
    predicate: str = Field(min_length=1, max_length=128)
    object: str = Field(min_length=1, max_length=1024)
    statement: str | None = Field(default=None, description="Default: 'subject predicate object'.")
    valid_at: UtcDatetime | None = Field(default=None, description="True from; default: now.")
    invalid_at: UtcDatetime | None = None
    confidence: float = Field(default=0.9, ge=0.0, le=1.0)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    object_is_entity: bool = False
    subject_type: str = "unknown"
    session_id: str | None = None
    source_episode_ids: list[str] = Field(default_factory=list)

    @field_validator("confidence", "importance")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError("must be a finite number between 0 and 1")
        return v

    @field_validator("predicate")
    @classmethod
    def _predicate(cls, v: str) -> str:
        if not normalize_predicate(v):
            raise ValueError("needs letters or digits, e.g. 'lives in' or 'works_at'")
        return v

    @field_validator("subject_type")
    @classmethod
    def _type(cls, v: str) -> str:
        if v not in {t.value for t in EntityType}:
            raise ValueError(f"must be one of {', '.join(t.value for t in EntityType)}")
        return v

    @model_validator(mode="after")
    def _interval(self) -> FactIn:
        if self.valid_at and self.invalid_at and self.invalid_at <= self.valid_at:
            raise ValueError(
                "invalid_at must be after valid_at (a fact cannot end before it starts)"
            )
        return self
