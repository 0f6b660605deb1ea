"""What recall returns: hits, each with the signals and factors that made its score."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from memvault.kg.model import Episode, Fact, Tier
from memvault.recall.scoring import Factors


class Explanation(BaseModel):
    signals: dict[str, float] = Field(
        default_factory=dict, description="Raw value of each relevance signal."
    )
    ranks: dict[str, int] = Field(
        default_factory=dict, description="Rank in each candidate channel that found it."
    )
    entities: list[str] = Field(default_factory=list)
    factors: Factors
    repeats: list[str] = Field(
        default_factory=list,
        description="Episodes of the same speaker with the same words at other times, "
        "folded into this hit (recall.fold_repeats).",
    )
    prefetched: str | None = Field(
        default=None, description="Served from the session's prefetch cache: why, and when."
    )

    def text(self) -> str:
        f = self.factors
        # a quote's run length and the cut of a thin turn are no relevance: said below
        sig = ", ".join(
            f"{k} {v:.3f}"
            for k, v in self.signals.items()
            if v and k not in ("phrase", "thin", "asks", "flat", "parts")
        )
        parts = [
            f"relevance {f.relevance:.3f} ({sig})",
            f"importance {f.importance:.2f}",
            f"decay {f.decay:.3f} ({f.age_days:.0f} days"
            + (f", half-life ×{f.stretch:.1f} by use)" if f.stretch > 1.0 else ")"),
            f"use {f.use:.2f} (access boost {f.access_boost:.2f}, "
            f"anti-stickiness {f.stickiness:.3f})",
        ]
        extra = []
        if f.fidelity != 1.0:
            extra.append(f"compressed ×{f.fidelity:.2f}")
        if f.confidence != 1.0:
            extra.append(f"effective confidence {f.confidence:.3f}")
        if f.currency != 1.0 or f.currency_note:
            extra.append(f"currency ×{f.currency:.2f}: {f.currency_note}")
        if f.quoted:
            extra.append(f"quotes {f.quoted} words of the query verbatim: ranked first")
        if self.signals.get("time"):
            extra.append(f"from the time the question names: × {1 + self.signals['time']:.2f}")
        if self.signals.get("when"):
            extra.append(f"names a time, asked when: × {1 + self.signals['when']:.2f}")
        if self.signals.get("parts"):
            extra.append(
                "among the closest in meaning to one of two things asked about (cosine "
                f"{self.signals['parts']:.3f}): shown"
            )
        if self.signals.get("amount"):
            extra.append(f"says a number, asked how many: × {1 + self.signals['amount']:.2f}")
        if self.signals.get("where"):
            extra.append(f"names a place, asked where: × {1 + self.signals['where']:.2f}")
        if self.signals.get("names"):
            extra.append(f"names one, asked which: × {1 + self.signals['names']:.2f}")
        if self.signals.get("flat"):
            extra.append(
                "its words are shared by many memories alike: the keyword channel weighed "
                f"× {self.signals['flat']:.2f}"
            )
        if self.signals.get("asks"):
            extra.append(f"only asks, tells nothing: × {1 - self.signals['asks']:.2f}")
        if self.signals.get("thin"):
            extra.append(f"says too little to be about anything: × {1 - self.signals['thin']:.2f}")
        if self.entities:
            extra.append("entities: " + ", ".join(self.entities))
        if self.repeats:
            extra.append(f"said {len(self.repeats) + 1} times (the others folded into this one)")
        if self.prefetched:
            extra.append(f"from the prefetch cache: {self.prefetched}")
        return (
            f"score {f.score:.4f} = "
            + " × ".join(parts)
            + ("; " + "; ".join(extra) if extra else "")
        )


class Hit(BaseModel):
    kind: Literal["episode", "fact", "persona"]  # persona: a current attitude
    id: str
    text: str
    score: float
    source_episode_ids: list[str]
    episode: Episode | None = None
    fact: Fact | None = None
    tier: Tier | None = Field(default=None, description="An episode's tier.")
    digest: Literal["digest", "headline"] | None = Field(
        default=None,
        description="Set when the text is what one-way compression left, not the original.",
    )
    explanation: Explanation


class Recall(list[Hit]):
    """The hits of one recall (a list, best first) with its id in the recall log (for
    :meth:`memvault.MemVault.verdict`) and, when this query has failed before, a hint."""

    recall_id: str | None = None
    hint: str | None = None
    prefetched: bool = False
    # memories of the namespace still waiting for their meaning vectors (a deferred write):
    # until catch-up they are found by their words and the graph only
    vectors_pending: int = 0
