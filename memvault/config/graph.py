"""Settings of the entity graph (composite edges, communities) and of the lint."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field, model_validator


def _default_affinity() -> dict[str, float]:
    return {
        "person|person": 0.6,
        "person|place": 0.8,
        "person|organization": 0.8,
        "person|event": 0.8,
        "person|thing": 0.6,
        "person|concept": 0.5,
        "place|place": 0.5,
        "place|organization": 0.6,
        "place|event": 0.7,
        "organization|organization": 0.5,
        "organization|event": 0.6,
        "thing|thing": 0.4,
        "concept|concept": 0.5,
    }


class GraphSettings(BaseModel):
    """Composite edges between entities and their Leiden communities."""

    edge_weights: dict[str, float] = Field(
        default_factory=lambda: {
            "co_occurrence": 0.25,
            "session_overlap": 0.20,
            "adamic_adar": 0.20,
            "type_affinity": 0.15,
            "semantic": 0.20,
        },
        description="Weights of the five signals in the composite.",
    )
    edge_threshold: float = Field(
        default=0.35, ge=0, le=1, description="A pair is an edge only at or above this."
    )
    edge_evidence: bool = Field(
        default=True,
        description="An edge also needs evidence: named together in two separate episodes, "
        "or two of: sessions shared beyond one, a common neighbour, meaning at or above "
        "edge_semantic_floor. One sentence alone never makes an edge.",
    )
    edge_semantic_floor: float = Field(
        default=0.5, ge=0, le=1, description="Cosine at which meaning counts as evidence."
    )
    type_affinity: dict[str, float] = Field(
        default_factory=_default_affinity,
        description='Prior per type pair ("person|place"); either order matches.',
    )
    type_affinity_default: float = Field(default=0.5, ge=0, le=1)
    resolution: float = Field(default=1.0, gt=0, description="Leiden resolution.")
    resolutions: list[float] = Field(
        default_factory=lambda: [0.5, 1.0, 2.0], description="The multi-resolution scan."
    )
    min_community_size: int = Field(default=2, ge=1)
    discovery_k: float = Field(
        default=1.5, ge=0, description="Surprising: above mean + k·std of its kind's scores."
    )
    discovery_max_per_kind: int = Field(
        default=20, ge=0, description="Inbox items per kind per run."
    )
    summaries: int = Field(
        default=10,
        ge=0,
        description="The largest communities named and summarised per dream (0: none).",
    )
    bridge_min_mentions: int = Field(
        default=3,
        ge=2,
        description="A pair across communities named together this often is a bridge "
        "candidate even below the edge threshold.",
    )

    @model_validator(mode="after")
    def _known_signals(self) -> GraphSettings:
        unknown = set(self.edge_weights) - {
            "co_occurrence",
            "session_overlap",
            "adamic_adar",
            "type_affinity",
            "semantic",
        }
        if unknown:
            raise ValueError(f"unknown edge signal(s): {', '.join(sorted(unknown))}")
        return self


class LintSettings(BaseModel):
    ontology_paths: list[Path] = Field(
        default_factory=list,
        description="Ontology files extending the shipped one, in order (later files win).",
    )
    volatile_min_values: int = Field(
        default=3, ge=2, description="A single-valued predicate with this many values..."
    )
    volatile_window_days: float = Field(
        default=90.0, gt=0, description="...for one subject within this many days is volatile."
    )
    llm_max_subjects: int = Field(
        default=200, ge=1, description="The LLM level reads the facts of this many subjects."
    )
    llm_batch: int = Field(default=10, ge=1, le=100, description="Subjects per LLM call.")
    claims_window_days: int = Field(
        default=30, ge=1, le=366, description="Claims: the days of attention compared."
    )
    claims_min_activity: int = Field(
        default=5, ge=1, description="Claims: a silent preference counts only this active."
    )
    claims_min_mentions: int = Field(
        default=3, ge=1, description="Claims: an avoided topic mentioned this often is flagged."
    )
