"""The persona layers' settings (``MEMVAULT_PERSONA__*``): docs/persona.md."""

from __future__ import annotations

from pydantic import BaseModel, Field, model_validator

from memvault.kg.persona import Category, UseKind


def _decay() -> dict[Category, float]:
    slow, mid, fast = 0.004, 0.005, 0.008  # said once: no longer current after ≈ 173, 139, 87 days
    return {
        Category.WRITING_STYLE: mid,
        Category.TECH_CHOICE: mid,
        Category.DESIGN_PRINCIPLE: slow,
        Category.PACE: fast,
        Category.AESTHETIC: slow,
        Category.COMMUNICATION: mid,
        Category.TOOLING: fast,
        Category.RISK: slow,
        Category.LEARNING: mid,
        Category.COLLABORATION: mid,
    }


_XP: dict[UseKind, float] = {"read": 1.0, "do": 3.0, "teach": 6.0, "build": 6.0}


class PersonaSettings(BaseModel):
    on_write: bool = Field(
        default=True, description="Extract attitudes and skill uses on the write path (rules)."
    )
    decay_per_day: dict[Category, float] = Field(
        default_factory=_decay,
        description="Per category: λ of confidence × exp(−λ·days since the last evidence).",
    )
    current_floor: float = Field(
        default=0.3, ge=0, le=1, description="Below this an attitude is no longer current."
    )
    initial_confidence: float = Field(default=0.6, gt=0, le=1)
    corroborate_step: float = Field(
        default=0.15, gt=0, le=1, description="A restatement: confidence += step × (1 − it)."
    )
    skill_half_life_days: float = Field(
        default=180.0, gt=0, description="A use's experience points halve every this many days."
    )
    competent_xp: float = Field(default=10.0, gt=0, description="L2 (competent) from here.")
    generative_xp: float = Field(default=30.0, gt=0, description="L3 (generative) from here.")
    use_xp: dict[UseKind, float] = Field(
        default_factory=lambda: dict(_XP),
        description="Experience per use: reading < doing < teaching or building.",
    )
    recall_hits: int = Field(
        default=2, ge=0, le=20, description="Current attitudes added to a persona-aware recall."
    )

    @model_validator(mode="after")
    def _sound(self) -> PersonaSettings:
        self.decay_per_day = {**_decay(), **self.decay_per_day}
        bad = [k.value for k, v in self.decay_per_day.items() if not 0 <= v < 1]
        if bad:
            raise ValueError(f"persona.decay_per_day.{bad[0]} must be in [0, 1)")
        if self.generative_xp <= self.competent_xp:
            raise ValueError("persona.generative_xp must be above persona.competent_xp")
        self.use_xp = {**_XP, **self.use_xp}
        if any(v <= 0 for v in self.use_xp.values()):
            raise ValueError("persona.use_xp values must be above 0")
        return self
