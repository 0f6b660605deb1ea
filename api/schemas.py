"""Request and response bodies of the REST API (what OpenAPI shows)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memvault.clock import UtcDatetime
from memvault.ingest.inputs import EpisodeIn, FactIn
from memvault.ingest.normalize import QUERY_MAX_CHARS
from memvault.lint.findings import LEVELS, Level


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorBody(BaseModel):
    type: str = Field(description="not_found, invalid_input, conflict, unavailable, ...")
    message: str = Field(description="What is wrong and what to fix.")
    field: str | None = None
    hint: str | None = None
    details: list[dict[str, Any]] | None = None


class ErrorResponse(BaseModel):
    error: ErrorBody


class EpisodesIn(Strict):
    items: list[EpisodeIn] = Field(min_length=1, max_length=1000)


class SessionTurnsIn(Strict):
    items: list[EpisodeIn] = Field(
        min_length=1, max_length=1000, description="Turns of this session, in order."
    )


class FactsIn(Strict):
    items: list[FactIn] = Field(min_length=1, max_length=1000)


class RecallIn(Strict):
    query: str = Field(min_length=1, max_length=QUERY_MAX_CHARS)
    k: int = Field(default=10, ge=1, le=100)
    as_of: UtcDatetime | None = Field(default=None, description="Recall as the world stood then.")
    explain: bool = Field(default=False, description="Include how each score was made.")
    record_access: bool = Field(
        default=False, description="Count the returned hits as used (feeds the access boost)."
    )
    persona: bool = Field(
        default=False, description="Add the current attitudes the query touches (kind persona)."
    )
    session_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=256,
        description="The session asking: its prefetch cache is looked at first.",
    )


class HitOut(BaseModel):
    kind: Literal["episode", "fact", "persona"]
    id: str
    text: str
    score: float
    source_episode_ids: list[str]
    tier: str | None = Field(default=None, description="An episode's tier.")
    digest: str | None = Field(
        default=None, description="'digest' / 'headline': the text is what compression left."
    )
    explanation: dict[str, Any] | None = None
    explanation_text: str | None = None


class RecallOut(BaseModel):
    hits: list[HitOut]
    recall_id: str | None = Field(default=None, description="For POST /verdicts.")
    hint: str | None = Field(default=None, description="Set when this question failed before.")
    prefetched: bool = Field(default=False, description="Served from the prefetch cache.")
    vectors_pending: int = Field(
        default=0,
        description="Memories still waiting for their meaning vectors: found by their words "
        "only until catch-up embeds them.",
    )


class VerdictIn(Strict):
    recall_id: str = Field(max_length=64)
    verdict: Literal["correct", "incorrect", "ambiguous"]
    hit_id: str | None = Field(default=None, max_length=128, description="One hit, or the answer.")


class FeedbackIn(Strict):
    ids: list[str] = Field(min_length=1, max_length=1000)
    signal: Literal["access", "reinforce", "up", "down", "correct", "incorrect"]


class DreamIn(Strict):
    apply: bool = Field(default=False, description="False: a dry run, answered at once.")
    force: bool = Field(default=False, description="Ignore the gate (24 h and 5 sessions).")


class FoldIn(Strict):
    apply: bool = Field(default=False, description="False: how many episodes each type would read.")
    rebuild: bool = Field(default=False, description="Start every digest over (with apply).")
    undo: bool = Field(
        default=False, description="Undo each type's last fold run (restored only with apply)."
    )


class AttitudeIn(Strict):
    category: str = Field(max_length=64, description="One of the ten categories.")
    statement: str = Field(max_length=500)
    topic: str | None = Field(default=None, max_length=200)
    context: str | None = Field(default=None, max_length=100, description="e.g. 'in chat'.")
    polarity: int = Field(default=1, description="1 prefers, -1 avoids.")
    confidence: float | None = None
    evidence: str | None = Field(default=None, max_length=128, description="An episode id.")


class SkillUseIn(Strict):
    skill: str = Field(max_length=100)
    kind: str = Field(default="do", max_length=16, description="read | do | teach | build")
    evidence: str | None = Field(default=None, max_length=128, description="An episode id.")


class LifecycleIn(Strict):
    apply: bool = Field(default=False, description="False: a dry run, what it would do.")


class LintIn(Strict):
    levels: list[Level] = Field(default_factory=lambda: list(LEVELS), min_length=1)
    propose: bool = Field(
        default=False, description="Check each fix again and queue it for review (never applied)."
    )
    limit: int = Field(default=100, ge=1, le=1000, description="Findings returned.")


class UndoIn(Strict):
    force: bool = False


class RejectIn(Strict):
    note: str = Field(default="", max_length=2000)


class DecideIn(Strict):
    """Approve or reject the pending review items that match every filter given."""

    decision: Literal["approve", "reject"]
    reason: str | None = Field(default=None, max_length=64, description="A reason code.")
    op: str | None = Field(default=None, max_length=128, description="An op among the changes.")
    run_id: str | None = Field(default=None, max_length=128, description="The proposing run.")
    every: bool = Field(default=False, description="Every pending item (no filter given).")
    dry_run: bool = Field(default=True, description="List what matches; decide nothing.")
    note: str = Field(default="", max_length=2000, description="Kept with each rejection.")


class IdsIn(Strict):
    ids: list[str] = Field(min_length=1, max_length=1000)


class KeyIn(Strict):
    name: str = Field(min_length=1, max_length=128)
    namespaces: list[str] = Field(default_factory=list, max_length=1000)
    admin: bool = False
    scope: Literal["read", "write"] = Field(
        default="write", description="read: recall and lists only; write: everything else too."
    )


class Page(BaseModel):
    items: list[dict[str, Any]]
    limit: int
    offset: int
    next_offset: int | None = Field(description="Pass as offset for the next page; None: last.")


class ForgetSubjectIn(Strict):
    subject: str = Field(min_length=1, max_length=256, description="The person's name.")
    dry_run: bool = Field(default=True, description="True (the default): list what would go.")


class CorrectIn(Strict):
    text: str = Field(min_length=1, max_length=200_000, description="The corrected memory.")
