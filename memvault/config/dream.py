"""The dream's settings (``MEMVAULT_DREAM__*``): its gate, consolidation and routing, review
governance, maintenance, the hygiene janitor and the tiers."""

from __future__ import annotations

from itertools import pairwise
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from memvault.kg.model import MemoryType


class GateSettings(BaseModel):
    """When a namespace may dream: both conditions must hold (``--force`` bypasses them)."""

    min_hours: float = Field(default=24.0, ge=0, description="Hours since the last dream.")
    min_sessions: int = Field(
        default=5,
        ge=0,
        description="Sessions written since then (a day of memories without a session counts "
        "as one).",
    )
    lock_ttl_s: float = Field(
        default=3600.0, gt=0, description="A dream lock expires after this (crashed holder)."
    )


class ConsolidateSettings(BaseModel):
    single_valued_predicates: list[str] = Field(
        default_factory=lambda: [
            "lives_in",
            "works_at",
            "occupation",
            "manager",
            "boss",
            "wife",
            "husband",
            "partner",
            "name",
            "age",
            "birthday",
        ],
        description="Predicates that hold one object at a time: different objects conflict.",
    )
    auto_approve_confidence: float = Field(
        default=0.8, ge=0, le=1, description="Changes at or below this go to review."
    )
    rules_settle_at: float = Field(
        default=0.95,
        ge=0,
        le=1,
        description="The timeline rules are asked first: a rule verdict at or above this is "
        "final (the same object twice, a newer value of a predicate that changes often); the "
        "rest go to the configured model.",
    )
    escalate_below: float = Field(
        default=0.7, ge=0, le=1, description="Verdicts below this go to the reasoning model."
    )
    judge_batch: int = Field(default=20, ge=1, le=200, description="Conflicts per LLM call.")
    duplicate_cosine: float = Field(
        default=0.92, gt=0, le=1, description="Same-speaker episodes at least this similar merge."
    )
    max_auto_per_op: int = Field(
        default=1000, ge=1, description="An op proposing more changes than this goes to review."
    )
    apply_chunk: int = Field(
        default=500,
        ge=1,
        description="Changes applied per transaction (each with its journal entry); a killed "
        "apply resumes, or undoes, from the last committed chunk.",
    )


class MaintenanceSettings(BaseModel):
    stale_days: float = Field(default=90.0, ge=0)
    stale_factor: float = Field(default=0.8, gt=0, le=1)
    stale_floor: float = Field(default=0.01, ge=0, le=1)
    user_stale_days: float = Field(default=180.0, ge=0)
    user_stale_factor: float = Field(default=0.95, gt=0, le=1)
    user_stale_floor: float = Field(default=0.15, ge=0, le=1)
    boost_min_access: int = Field(default=5, ge=0)
    boost_factor: float = Field(default=1.1, ge=1)
    boost_max_stickiness: float = Field(default=5.0, ge=0)
    prune_importance: float = Field(default=0.05, ge=0, le=1)
    prune_days: float = Field(default=30.0, ge=0)
    user_prune_importance: float = Field(default=0.02, ge=0, le=1)
    user_prune_days: float = Field(default=365.0, ge=0)
    unreinforced_stickiness: float = Field(default=5.0, ge=0)
    unreinforced_factor: float = Field(default=0.9, gt=0, le=1)
    snooze_min_access: int = Field(default=10, ge=0)
    snooze_stickiness: float = Field(default=8.0, ge=0)
    snooze_days: float = Field(default=30.0, gt=0)


class HygieneSettings(BaseModel):
    enabled: bool = True
    cull_floor: float = Field(
        default=0.1,
        ge=0,
        le=1,
        description="Facts whose effective confidence falls below are culled; 0 disables.",
    )
    ttl_turns: int = Field(default=500, ge=1, description="Episodic TTL: turns kept per session.")
    ttl_days: float = Field(default=90.0, gt=0, description="Episodic TTL: age in days.")
    ttl_operator: Literal["or", "and"] = Field(
        default="or", description="Expire when over the turn count OR (AND) older than ttl_days."
    )
    permanent_stale_days: float = Field(default=180.0, gt=0)
    schedule: Literal["onConsolidation", "onCapture", "manual"] = Field(
        default="onConsolidation",
        description="When the janitor runs: inside each dream, after writes, or on demand.",
    )
    capture_every_turns: int = Field(
        default=50, ge=1, description="onCapture: run once this many episodes were written since."
    )
    confidence_decay: bool = Field(
        default=True,
        description="false: facts never lose confidence with time (no cull) and recall ranks "
        "without age decay.",
    )


class ReviewSettings(BaseModel):
    """The review queue's governance: due dates and calibrated auto-approval."""

    max_auto_impact: Literal["low", "medium"] = Field(
        default="medium", description="Changes of higher impact always wait for a human."
    )
    due_days: float = Field(
        default=7.0, gt=0, description="An item not decided by then is re-queued, with history."
    )
    calibrate: bool = Field(
        default=True, description="Move each op's auto-approve threshold from the decisions."
    )
    min_threshold: float = Field(default=0.6, ge=0, le=1, description="Loosest threshold.")
    max_threshold: float = Field(default=0.98, ge=0, le=1, description="Strictest threshold.")
    step: float = Field(default=0.05, gt=0, le=0.5, description="One calibration move.")
    loosen_after: int = Field(
        default=20, ge=1, description="Approvals in a row (no rejection) before loosening."
    )

    @model_validator(mode="after")
    def _bounds(self) -> ReviewSettings:
        if self.min_threshold >= self.max_threshold:
            raise ValueError("min_threshold must be below max_threshold")
        return self


TierDays = tuple[float, float, float | None]


def _tier_days() -> dict[MemoryType, TierDays]:
    return {
        MemoryType.EPISODIC: (7.0, 60.0, 365.0),
        MemoryType.PROJECT: (7.0, 90.0, 365.0),
        MemoryType.REFERENCE: (30.0, 180.0, 730.0),
        MemoryType.FEEDBACK: (30.0, 365.0, None),
        MemoryType.USER: (30.0, 365.0, None),
    }


class TierSettings(BaseModel):
    """How episodes move down hot → warm → cold → frozen, and what of them remains
    (docs/tiers.md). Moving to cold replaces the text with a digest, to frozen with a
    headline: one way."""

    enabled: bool = True
    after_days: dict[MemoryType, TierDays] = Field(
        default_factory=_tier_days,
        description="Per type: days without use before warm, cold, frozen (null: never frozen).",
    )
    digest_chars: int = Field(default=400, ge=40, le=400, description="A cold digest's limit.")
    headline_chars: int = Field(default=120, ge=20, le=400, description="A frozen headline's.")
    journal_retention_days: float = Field(
        default=30.0,
        ge=0,
        description="Days undo can still restore compressed text; after that it is gone.",
    )
    protect_reinforced_days: float = Field(
        default=90.0, ge=0, description="A memory confirmed useful this recently stays whole."
    )
    used_grace: float = Field(
        default=2.0,
        ge=1,
        description="A memory ever used waits this many times longer before cold and frozen.",
    )
    ignited_stretch: float = Field(
        default=3.0,
        ge=1,
        description="A memory whose half-life access stretched this far is ignited: kept whole.",
    )
    batch: int = Field(default=20, ge=1, le=200, description="Texts per digest model call.")

    @model_validator(mode="after")
    def _increasing(self) -> TierSettings:
        self.after_days = {**_tier_days(), **self.after_days}
        for kind, (warm, cold, frozen) in self.after_days.items():
            steps = [warm, cold] + ([frozen] if frozen is not None else [])
            if steps[0] <= 0 or any(b <= a for a, b in pairwise(steps)):
                raise ValueError(
                    f"dream.tiers.after_days.{kind.value} must be increasing and above 0 "
                    f"(warm < cold < frozen), got {[warm, cold, frozen]}"
                )
        if self.headline_chars > self.digest_chars:
            raise ValueError(
                f"dream.tiers.headline_chars ({self.headline_chars}) must not exceed "
                f"dream.tiers.digest_chars ({self.digest_chars})"
            )
        return self


class UpdateSettings(BaseModel):
    """Episode-level updates: a newer statement of the same speaker replacing an older one
    about one attribute (docs/recall.md)."""

    enabled: bool = True
    certainty: float = Field(
        default=0.85,
        ge=0,
        le=1,
        description="Confidence of a link; at or below consolidate.auto_approve_confidence "
        "every link waits for review.",
    )
    candidate_cosine: float = Field(
        default=0.1,
        ge=-1,
        le=1,
        description="With a model configured: the older statements of the same speaker nearest "
        "to a new one are judged too (beside the rules' pairs), if at least this close.",
    )
    candidates_per_episode: int = Field(
        default=5, ge=0, le=20, description="Of those, the nearest this many."
    )
    batch: int = Field(default=20, ge=1, le=200, description="Pairs per model call.")


class PruneReviewSettings(BaseModel):
    """The model's prune review after the janitor (memvault.dream.review_prune)."""

    enabled: bool = Field(
        default=False,
        description="After the janitor, a configured model reviews busy subjects' live facts "
        "for contradiction and repetition; its proposals go through routing and review.",
    )
    min_facts: int = Field(
        default=8, ge=2, description="Only subjects with at least this many live facts."
    )
    max_subjects: int = Field(default=10, ge=1, le=1000, description="Subjects per run.")
    max_facts: int = Field(default=60, ge=2, le=500, description="Facts shown per subject.")
    max_confidence: float = Field(
        default=0.75,
        ge=0,
        le=1,
        description="The model's confidence is capped here: at or below the auto-approve "
        "threshold its proposals wait for a human.",
    )


class DreamSettings(BaseModel):
    undo_days: float | None = Field(
        default=90.0,
        ge=0,
        description="Days a run can be undone; then its journal (every record before the run "
        "changed it) is released (null: kept for ever).",
    )
    gate: GateSettings = Field(default_factory=GateSettings)
    review: ReviewSettings = Field(default_factory=ReviewSettings)
    consolidate: ConsolidateSettings = Field(default_factory=ConsolidateSettings)
    maintenance: MaintenanceSettings = Field(default_factory=MaintenanceSettings)
    hygiene: HygieneSettings = Field(default_factory=HygieneSettings)
    tiers: TierSettings = Field(default_factory=TierSettings)
    updates: UpdateSettings = Field(default_factory=UpdateSettings)
    prune_review: PruneReviewSettings = Field(default_factory=PruneReviewSettings)
