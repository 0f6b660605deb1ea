"""Settings of the features around the core (``MEMVAULT_PLANS__*``, ``MEMVAULT_SYNC__*``,
``MEMVAULT_PROFILE__*``): plan hygiene, memory directories the dream syncs, the interest
profile."""

from __future__ import annotations

from itertools import pairwise

from pydantic import BaseModel, Field, model_validator


class PlanSettings(BaseModel):
    """Plan hygiene (``memvault plans``): docs/interop.md."""

    stale_days: float = Field(default=7.0, gt=0, description="Stale: older than this ...")
    stale_max_bytes: int = Field(default=2048, ge=1, description="... and smaller than this.")
    dormant_days: float = Field(default=14.0, gt=0, description="Dormant: older than this.")
    markers: list[str] = Field(
        default_factory=lambda: [
            "COMPLETED",
            "-- Complete",
            "-- Done",
            "No further planning",
            "No code changes",
            "No plan needed",
            "finalized",
        ],
        min_length=1,
        description="A plan is completed when its H1 or last non-empty line holds one.",
    )
    current_names: list[str] = Field(
        default_factory=lambda: ["current"], description="A file so named is active."
    )

    @model_validator(mode="after")
    def _windows(self) -> PlanSettings:
        if self.dormant_days < self.stale_days:
            raise ValueError("plans.dormant_days must not be below plans.stale_days")
        if any(not m.strip() for m in self.markers):
            raise ValueError("plans.markers must not hold an empty marker")
        return self


class ProfileSettings(BaseModel):
    """The interest profile (``memvault profile``): docs/gaps.md."""

    windows: list[int] = Field(
        default_factory=lambda: [7, 30, 90], min_length=2, description="Days, increasing."
    )
    rise: float = Field(default=2.0, gt=1, description="Rising: share × this in the short window.")
    min_count: int = Field(default=2, ge=1, description="Rising or cooling from this many.")
    top: int = Field(default=10, ge=1, le=100, description="Entries listed per list.")
    diary_retention_days: float = Field(
        default=730.0, gt=0, description="Daily snapshots older than this are dropped."
    )
    log_retention_days: float = Field(
        default=365.0, gt=0, description="Recall-log entries older than this are dropped."
    )

    @model_validator(mode="after")
    def _increasing(self) -> ProfileSettings:
        w = self.windows
        if w[0] <= 0 or any(b <= a for a, b in pairwise(w)):
            raise ValueError(f"profile.windows must be increasing days above 0, got {w}")
        return self


class PrefetchSettings(BaseModel):
    """Prefetch, the slow thinker (docs/gaps.md#prefetch)."""

    enabled: bool = Field(
        default=True, description="The server warms a session's predictions after its writes."
    )
    max_queries: int = Field(default=8, ge=1, le=50, description="Predictions per session.")
    k: int = Field(default=10, ge=1, le=100, description="Hits warmed per prediction.")
    ttl_s: float = Field(default=600.0, gt=0, description="A warm entry is used this long.")
    recent_writes: int = Field(default=5, ge=1, le=100, description="Writes read per session.")
    templates: int = Field(default=3, ge=0, le=20, description="Question shapes filled in.")
    log_window: int = Field(
        default=500, ge=1, description="Recent recall-log entries read for repeats and shapes."
    )


class SyncSettings(BaseModel):
    """Directories the dream keeps in sync with the vault (docs/interop.md)."""

    memory_dirs: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Per namespace: MEMORY.md directories read on each dream (never written).",
    )
