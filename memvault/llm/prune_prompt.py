"""The prompt of the model's prune review (memvault.dream.review_prune)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from memvault.llm.port import Prompt


class PruneVerdict(BaseModel):
    fact: int = Field(description="The number of the fact that should no longer count.")
    kind: Literal["contradicted", "repeated"]
    because_of: int = Field(description="The number of the fact that contradicts or repeats it.")
    reason: str = ""
    confidence: float = Field(default=0.5, ge=0, le=1)


class PruneVerdicts(BaseModel):
    verdicts: list[PruneVerdict] = Field(default_factory=list)


_PRUNE_SYSTEM = (
    "You review the live facts an AI agent's memory holds about one subject, numbered, each "
    "with the date since when it holds. Point out only facts that should no longer count: "
    "'contradicted' when a NEWER fact says the opposite or replaces it (the older one has "
    "ended), 'repeated' when another fact says the same thing and this one adds nothing (no "
    "number, name, date or place only it has). Facts that merely differ, or that can both "
    "hold, stay. JSON: {'verdicts': [{'fact': n, 'kind': 'contradicted' or 'repeated', "
    "'because_of': n, 'reason', 'confidence' 0..1}]}. When unsure, say nothing."
)


def prune_v1(subject: str, facts: Sequence[str]) -> Prompt[PruneVerdicts]:
    """``facts``: 'YYYY-MM-DD statement' lines, oldest first; verdicts name them by number
    (1-based), never by id."""
    numbered = [{"n": n, "fact": f} for n, f in enumerate(facts, 1)]
    return Prompt(
        name="prune",
        version=1,
        messages=[
            {"role": "system", "content": _PRUNE_SYSTEM},
            {"role": "user", "content": json.dumps({"subject": subject, "facts": numbered})},
        ],
        response_model=PruneVerdicts,
        inputs={"subject": subject, "facts": list(facts)},
    )
