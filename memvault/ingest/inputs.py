"""What callers send to the write path, validated before anything is stored."""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from memvault.clock import UtcDatetime, ensure_utc
from memvault.errors import Problem
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


# What other tools call these fields: a record that uses one of them is told the name memvault
# reads instead of having it refused with no way forward (or, worse, dropped).
_FIELD_ALIASES = {
    "time": "occurred_at",
    "timestamp": "occurred_at",
    "date": "occurred_at",
    "datetime": "occurred_at",
    "created_at": "occurred_at",
    "ts": "occurred_at",
    "at": "occurred_at",
    "id": "external_id",
    "uuid": "external_id",
    "message_id": "external_id",
    "session": "session_id",
    "conversation_id": "session_id",
    "thread_id": "session_id",
    "role": "speaker",
    "author": "speaker",
    "user": "speaker",
    "name": "speaker",
    "sender": "speaker",
    "text": "content",
    "body": "content",
    "message": "content",
    "memory": "content",
    "tags": "metadata",
    "meta": "metadata",
}


def unknown_field(name: str, known: Iterable[str]) -> str:
    """What to say of a field the record's kind does not have: the name memvault reads for
    it when one is plain, else the fields there are (and where anything else can go)."""
    fields = sorted(known)
    alias = _FIELD_ALIASES.get(name.strip().casefold())
    close = [alias] if alias in fields else difflib.get_close_matches(name, fields, n=1)
    if close:
        return f"unknown field, did you mean '{close[0]}'?"
    keep = "; anything else goes in 'metadata'" if "metadata" in fields else ""
    return f"unknown field (the fields are {', '.join(fields)}{keep})"


def validation_message(exc: ValidationError, model: type[BaseModel] | None = None) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "record"
        if err["type"] == "extra_forbidden" and model is not None and len(err["loc"]) == 1:
            parts.append(f"{where}: {unknown_field(str(err['loc'][0]), model.model_fields)}")
            continue
        parts.append(f"{where}: {err['msg'].removeprefix('Value error, ')}")
    return "; ".join(parts)


def parse_facts(
    items: Sequence[FactIn | Mapping[str, Any]],
    labels: Sequence[str] | None = None,
    *,
    now: datetime,
) -> tuple[list[FactIn], list[Problem]]:
    """The valid facts, and a problem for each invalid one (labelled ``fact N`` by default)."""
    parsed: list[FactIn] = []
    problems: list[Problem] = []
    for i, item in enumerate(items):
        where = labels[i] if labels else f"fact {i}"
        try:
            fi = item if isinstance(item, FactIn) else FactIn.model_validate(item)
        except ValidationError as exc:
            problems.append(Problem(where, validation_message(exc, FactIn)))
            continue
        valid = ensure_utc(fi.valid_at) if fi.valid_at else now
        if fi.invalid_at is not None and ensure_utc(fi.invalid_at) <= valid:
            problems.append(Problem(where, "invalid_at must be after valid_at"))
            continue
        parsed.append(fi)
    return parsed, problems


def parse_items(
    items: Sequence[EpisodeIn | Mapping[str, Any]], labels: Sequence[str] | None = None
) -> tuple[list[tuple[str, EpisodeIn]], list[Problem]]:
    """Validate items; return the good ones with their labels and a problem per bad one."""
    parsed: list[tuple[str, EpisodeIn]] = []
    problems: list[Problem] = []
    for i, item in enumerate(items):
        where = labels[i] if labels else f"item {i}"
        try:
            good = item if isinstance(item, EpisodeIn) else EpisodeIn.model_validate(item)
            parsed.append((where, good))
        except ValidationError as exc:
            problems.append(Problem(where, validation_message(exc, EpisodeIn)))
    return parsed, problems
