"""The knowledge-graph domain model: pure data, standard library and pydantic only.

Times are timezone-aware UTC datetimes. A fact is bi-temporal: ``valid_at`` / ``invalid_at``
say when it held *in the world*, ``created_at`` / ``expired_at`` when the vault learned and
retired it. Nothing here does I/O.
"""

from __future__ import annotations

import hashlib
import math
import uuid
from datetime import datetime
from enum import StrEnum
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memvault.language.text import CHUNK_CHARS, CHUNK_OVERLAP, tail_chunks

NAMESPACE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$"


def new_id() -> str:
    return uuid.uuid4().hex


class MemoryType(StrEnum):
    """What kind of memory an episode is; each type decays at its own rate in recall."""

    EPISODIC = "episodic"  # plain default: something that happened (a turn, an observation)
    USER = "user"  # about the user: identity, preferences, standing facts
    FEEDBACK = "feedback"  # the user's corrections and reactions
    PROJECT = "project"  # work state that goes stale quickly
    REFERENCE = "reference"  # documents, notes, looked-up material


class Tier(StrEnum):
    HOT = "hot"
    WARM = "warm"
    COLD = "cold"
    FROZEN = "frozen"


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str = Field(default_factory=new_id)
    namespace: str = Field(pattern=NAMESPACE_PATTERN, description="Owner: a user or an agent.")


class Session(Record):
    """A conversation or work session; episodes point at it by ``id``."""

    id: str = Field(min_length=1, max_length=256)
    started_at: datetime
    last_at: datetime
    episode_count: int = 0
    metadata: dict[str, Any] = Field(default_factory=dict)


class Replacement(BaseModel):
    """A newer episode that replaced what this one says about one attribute (the dream's
    ``updates`` stage): "I live in Berlin" → "we finally moved to Lisbon"."""

    model_config = ConfigDict(extra="forbid")

    episode_id: str = Field(min_length=1)
    at: datetime = Field(description="When the newer statement was made.")
    attribute: str = Field(min_length=1, description="What changed: residence, employer, ...")
    before: str = ""
    after: str = ""
    by: Literal["rules", "model", "user"] = "rules"  # user: a correction


class Episode(Record):
    """A raw memory as it was written: a conversation turn, an observation, a note."""

    content: str = Field(min_length=1)
    type: MemoryType = MemoryType.EPISODIC
    speaker: str | None = Field(default=None, description="Who said or produced it, if anyone.")
    session_id: str | None = None
    external_id: str | None = Field(
        default=None, description="The caller's id (e.g. a turn id); unique within a namespace."
    )
    position: int | None = Field(
        default=None, ge=0, description="Order within its session (0 = first); set on write."
    )
    content_hash: str = ""
    occurred_at: datetime = Field(description="When it happened in the world.")
    created_at: datetime = Field(description="When the vault stored it.")
    expired_at: datetime | None = Field(default=None, description="When the vault retired it.")
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    access_count: int = Field(default=0, ge=0)
    reinforced_count: int = Field(default=0, ge=0)
    last_accessed: datetime | None = None
    last_reinforced_at: datetime | None = None
    cooldown_until: datetime | None = Field(
        default=None, description="Snoozed: hidden from recall until this time."
    )
    tier: Tier = Tier.HOT
    permanent: bool = Field(default=False, description="Never deleted by hygiene.")
    replaced_by: list[Replacement] = Field(
        default_factory=list, description="Newer statements that replaced this one, per attribute."
    )
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("importance")
    @classmethod
    def _finite(cls, v: float) -> float:
        return _require_finite(v, "importance")

    def index_text(self) -> str:
        """The text the keyword index sees: what was said and who said it, and for a digest
        the words its text no longer holds (``metadata.digest.cues``), so a compressed memory
        is still found by its own words (docs/tiers.md)."""
        text = f"{self.speaker}: {self.content}" if self.speaker else self.content
        cues = (self.metadata.get("digest") or {}).get("cues")
        return f"{text} {cues}" if isinstance(cues, str) and cues else text

    def chunk_texts(self, size: int = CHUNK_CHARS, read: int | None = None) -> list[str]:
        """What the embedder does not read of a long text (``read``: how many characters of
        it, whitespace runs as one; MiniLM's 256 tokens are about 1,100 of English; unknown:
        ``size``): the rest in overlapping windows, one vector each (kind ``chunk``), so that a
        fact after the 3,000th character is found by meaning too
        (memvault.ingest.chunking)."""
        return tail_chunks(self.vector_text(), size, CHUNK_OVERLAP, read=read)

    def vector_text(self) -> str:
        """The text the vector index sees: what was said. With the speaker's name in it, every
        turn of a speaker moved toward any question naming them and relevance no longer
        told them apart (who said it counts through the keyword index and the actor signal;
        docs/decisions/0009)."""
        return self.content


ENTITY_TYPE_PATTERN = r"^[a-z][a-z0-9_]{0,39}$"


class EntityType(StrEnum):
    """The built-in types; a namespace may define its own (memvault.kg.vocabulary)."""

    PERSON = "person"
    PLACE = "place"
    ORGANIZATION = "organization"
    THING = "thing"
    CONCEPT = "concept"
    EVENT = "event"
    UNKNOWN = "unknown"


class Entity(Record):
    """A node of the graph: someone or something memories talk about. Its embedding lives
    in the store's vector index under kind ``entity``."""

    name: str = Field(min_length=1, max_length=256)
    # a built-in type (EntityType) or one the namespace defined (memvault.kg.vocabulary)
    type: str = Field(default=EntityType.UNKNOWN.value, pattern=ENTITY_TYPE_PATTERN)
    aliases: list[str] = Field(default_factory=list)
    created_at: datetime
    last_seen_at: datetime
    mention_count: int = Field(default=0, ge=0)

    def names(self) -> list[str]:
        return [self.name, *self.aliases]


class Fact(Record):
    """A bi-temporal statement ``subject —predicate→ object`` with its provenance."""

    subject_id: str
    subject: str = Field(description="The subject entity's name when the fact was written.")
    predicate: str = Field(min_length=1, max_length=128)
    object: str = Field(min_length=1, description="The object: an entity's name or a value.")
    object_id: str | None = Field(default=None, description="Set when the object is an entity.")
    statement: str = Field(min_length=1, description="The fact as one readable sentence.")
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    valid_at: datetime = Field(description="True in the world from this time.")
    invalid_at: datetime | None = Field(
        default=None, description="True in the world until this time (None: still true)."
    )
    created_at: datetime = Field(description="When the vault learned it.")
    expired_at: datetime | None = Field(
        default=None, description="When the vault retired it (merged, culled); None: live."
    )
    source_episode_ids: list[str] = Field(default_factory=list)
    source_session_ids: list[str] = Field(default_factory=list)
    access_count: int = Field(default=0, ge=0)
    reinforced_count: int = Field(default=0, ge=0)
    last_accessed: datetime | None = None
    last_reinforced_at: datetime | None = None
    cooldown_until: datetime | None = None

    @field_validator("confidence", "importance")
    @classmethod
    def _finite(cls, v: float, info: Any) -> float:
        return _require_finite(v, info.field_name)

    @field_validator("predicate")
    @classmethod
    def _predicate_form(cls, v: str) -> str:
        normal = normalize_predicate(v)
        if not normal:
            raise ValueError(f"predicate {v!r} has no letters or digits (e.g. 'lives_in')")
        return normal

    def is_valid_at(self, at: datetime) -> bool:
        """Held in the world at ``at`` and not retired by the vault."""
        if self.expired_at is not None:
            return False
        if self.valid_at > at:
            return False
        return self.invalid_at is None or at < self.invalid_at

    def believed_at(self, at: datetime) -> bool:
        """Held in the world at ``at`` as the vault believed it then: a fact the vault retired
        later (culled as stale, merged) still answers an as-of read for a time before its
        retirement. Only a contradiction (``invalid_at``), a forget or a correction ends what
        is answered for earlier times."""
        if self.expired_at is not None and self.expired_at <= at:
            return False
        if self.valid_at > at:
            return False
        return self.invalid_at is None or at < self.invalid_at

    def vector_text(self) -> str:
        """The text the vector index sees: the statement without its subject's name when it
        opens with it ("Bruno's partner is Eli" → "partner is Eli"), as episodes leave out
        their speaker (docs/decisions/0009); the subject counts through the keyword index
        and the actor signal."""
        text = self.statement
        if self.subject and text.lower().startswith(self.subject.lower()):
            rest = text[len(self.subject) :]
            for possessive in ("'s", "\u2019s"):
                rest = rest.removeprefix(possessive)
            if rest.strip():
                return rest.strip()
        return text

    def effective_confidence(self, now: datetime, half_life_days: float) -> float:
        """confidence × 0.5^(days since last confirmed / half-life): since the last
        reinforcement (a restatement, a "correct"), or since the vault learned it. Not since
        ``valid_at``: a fact true for years and restated yesterday is fresh. Recall's ranking
        and the janitor's cull both read this one rule."""
        since = self.last_reinforced_at or self.created_at
        days = max((now - since).total_seconds() / 86400.0, 0.0)
        return self.confidence * 0.5 ** (days / half_life_days)

    def key(self) -> tuple[str, str, str]:
        return (self.subject_id, self.predicate, normalize_name(self.object))


class Mention(BaseModel):
    """An episode names an entity."""

    model_config = ConfigDict(frozen=True)

    namespace: str
    episode_id: str
    entity_id: str


RecordKind = Literal["episode", "fact", "entity", "session"]
VectorKind = Literal["episode", "fact", "entity", "chunk"]
CHUNK = ":"  # a chunk vector's id: the episode's id, ":", its number from 1


def chunk_id(episode_id: str, n: int) -> str:
    return f"{episode_id}{CHUNK}{n}"


def chunk_episode(vector_id: str) -> str:
    """The episode a chunk vector belongs to."""
    return vector_id.rsplit(CHUNK, 1)[0]


@lru_cache(maxsize=65_536)  # a bulk write asks it of the same few names again and again
def normalize_name(name: str) -> str:
    """The form entity names are matched by: case- and space-insensitive, no articles."""
    words = "".join(c if c.isalnum() or c in " '-" else " " for c in name.lower()).split()
    if len(words) > 1 and words[0] in {"the", "a", "an"}:
        words = words[1:]
    return " ".join(words)


def normalize_predicate(predicate: str) -> str:
    cleaned = "".join(c if c.isalnum() else "_" for c in predicate.strip().lower())
    return "_".join(part for part in cleaned.split("_") if part)


def content_hash(namespace: str, session_id: str | None, speaker: str | None, text: str) -> str:
    """The exact-duplicate key: the same words, said by the same speaker, in the same session."""
    h = hashlib.blake2b(digest_size=16)
    for part in (namespace, session_id or "", speaker or "", text):
        h.update(part.encode("utf-8"))
        h.update(b"\x1f")
    return h.hexdigest()


def _require_finite(value: float, name: str) -> float:
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return value


def episode_order(e: Episode) -> tuple[datetime, str, int, str, str]:
    """A total order of episodes that is the same on every run: time, then session and order
    in it, then the text; the random id decides only between identical turns."""
    return (e.occurred_at, e.session_id or "", e.position or 0, e.content, e.id)


def words_said(e: Episode) -> tuple[str, str]:
    """Who said it and its words, case and spacing aside: the same words said again by one
    speaker are one saying (recall folds them, and lets them lend a lift once)."""
    return (e.speaker or "").casefold(), " ".join(e.content.casefold().split())


def fact_order(f: Fact) -> tuple[datetime, datetime, str, str]:
    """A total order of facts that is the same on every run: valid from, learned, then the
    statement; the random id decides only between identical statements."""
    return (f.valid_at, f.created_at, f.statement, f.id)
