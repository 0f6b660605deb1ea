"""How recall ranks (``MEMVAULT_RECALL__*``): docs/recall.md, docs/configuration.md."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from memvault.kg.model import MemoryType

# the relevance signals by name (docs/recall.md, "Fusion"): channels, lifts, and cuts
CHANNEL_WEIGHTS = {
    "dense": 0.5,
    "keyword": 0.5,
    "graph": 0.1,
    "actor": 0.3,
    "person": 0.3,
    "context": 0.25,
    "session": 0.2,
    "time": 0.5,
    "when": 0.2,
    "amount": 0.3,
    "where": 0.3,
    "names": 0.5,
    "thin": 0.5,
    "asks": 0.3,
}


class RecallSettings(BaseModel):
    """How recall ranks. Each factor of the composite score is explained per hit."""

    k: int = Field(default=10, ge=1, le=1000)
    candidates: int = Field(default=100, ge=1, le=5000, description="Per channel.")
    query_cache: int = Field(
        default=1024, ge=0, description="Query vectors kept for repeated queries (0: none)."
    )
    freeze_gc: bool = Field(
        default=True,
        description="After the process's first recall, freeze what is alive (gc.freeze) so "
        "the collector's full passes stop walking the model and indexes.",
    )
    channel_weights: dict[str, float] = Field(
        default_factory=lambda: dict(CHANNEL_WEIGHTS),
        description="Weights of the relevance signals by name (docs/recall.md); the names "
        "given replace their defaults, the others keep theirs ('{\"thin\": 0}' turns one off).",
    )

    @field_validator("channel_weights", mode="before")
    @classmethod
    def _weights(cls, given: Any) -> Any:
        """Names given change their weights only; a name no signal has, a weight below 0 or a
        cut above 1 is refused with what to write instead."""
        if not isinstance(given, Mapping):
            return given  # pydantic says what a mapping of names to numbers must be
        unknown = sorted(str(name) for name in given if name not in CHANNEL_WEIGHTS)
        if unknown:
            raise ValueError(
                f"unknown signal(s) {', '.join(unknown)}: the names are "
                + ", ".join(CHANNEL_WEIGHTS)
            )
        merged = {**CHANNEL_WEIGHTS, **given}
        for name, value in merged.items():
            if isinstance(value, int | float) and value < 0:
                raise ValueError(f"channel weight {name}={value}: 0 or more (0 turns it off)")
        for cut in ("thin", "asks"):
            share = merged[cut]
            if isinstance(share, int | float) and share > 1:
                raise ValueError(
                    f"channel weight {cut}={share}: the share of a score taken, 0 to 1"
                )
        return merged

    fusion: Literal["score", "rank"] = Field(
        default="score",
        description="How the base relevance joins the channels: 'score' (each channel's "
        "score over its best, weighted) or 'rank' (weighted reciprocal ranks, k = rank_k).",
    )
    rank_k: int = Field(default=60, ge=1, description="Reciprocal rank fusion's k.")
    keyword_standout: float = Field(
        default=0.5,
        ge=0,
        description="Score fusion: how far the keyword channel's best match must stand above "
        "the mean of its best ten (best / mean - 1) for the channel to keep its whole weight; "
        "below, its weight shrinks in proportion, to keyword_flat_weight at the least (words "
        "that many memories share tell little). 0: off.",
    )
    keyword_flat_weight: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="The least share of its weight the keyword channel keeps when its best "
        "match stands out not at all (keyword_standout).",
    )
    phrase_words: int = Field(
        default=5,
        ge=0,
        description="A memory holding this many consecutive words of the query verbatim "
        "(two of them not stop words) ranks first, the longest run first (0: off).",
    )
    question_parts: int = Field(
        default=2,
        ge=0,
        le=5,
        description='For a question about two things ("Which did I do first, the race or '
        'the homemade bread?", "How many days between A and B?": memvault.language.asked.'
        "two_things), this many candidates closest in meaning to each thing each have a "
        "place among the first ten, whatever k is, taken from the bottom (0: off).",
    )
    session_cap: int = Field(
        default=0,
        ge=0,
        description="At most this many of one session's memories before every other "
        "session's best has had its place (0: no cap).",
    )
    time_least_days: float = Field(
        default=7.0,
        gt=0,
        description="The narrowest window a time in the question opens, in days either side "
        '("on March 16", "yesterday", "last week"): people tell of a day days after it, or '
        "before it happens (memvault.language.when).",
    )
    time_told: bool = Field(
        default=True,
        description="The time lift also reads the time a turn itself names, seen from when "
        'it was said ("last month I drove to the coast", said in August, is about July: '
        "memvault.language.told).",
    )
    judge_then: bool = Field(
        default=True,
        description='A question about a state at a past time ("Where did I live in March?", '
        '"Who was I seeing five months ago?") has its currency judged as of then: the '
        "statement true then answers it, one made after it does not replace it (memvault."
        "language.when.looked_back). Not for an event, which the time lift finds. Never a "
        "filter; off: judged as of the question's own time.",
    )
    # per-type age decay exp(-λ·age_days); facts age through effective confidence instead
    decay_floor: float = Field(
        default=0.2,
        ge=0,
        le=1,
        description="Age decay lowers an episode's score to at most this share of it "
        "(decay = floor + (1 - floor) × e^(-λ·days)): it orders memories of similar "
        "relevance and never buries a clear match under a weak new one. 0: plain decay.",
    )
    decay_per_day: dict[MemoryType, float] = Field(
        default_factory=lambda: {
            MemoryType.USER: 0.0005,
            MemoryType.REFERENCE: 0.001,
            MemoryType.FEEDBACK: 0.002,
            MemoryType.PROJECT: 0.01,
            MemoryType.EPISODIC: 0.0005,
        }
    )
    fact_half_life_days: float = Field(default=180.0, gt=0)
    currency: bool = Field(
        default=True, description="Rank what was replaced below what replaced it (recall.md)."
    )
    outdated_factor: float = Field(
        default=0.3, gt=0, le=1, description="Score factor of a superseded fact's evidence."
    )
    contested_factor: float = Field(
        default=0.5, gt=0, le=1, description="...of an older value of a single-valued predicate."
    )
    current_factor: float = Field(
        default=1.2, ge=1, description="...of the evidence of a fact that replaced another."
    )
    answer_factor: float = Field(
        default=1.3, ge=1, description="...of a current fact about what the query asks."
    )
    chunks: bool = Field(
        default=True,
        description="A long episode is as near as its nearest chunk (the vectors of what the "
        "embedder would not read of it; settings.chunk_chars). false: its own vector only.",
    )
    group_cosine: float = Field(
        default=0.3,
        ge=0,
        le=1,
        description="For a question about now, leading episodes of one speaker at least this "
        "close in meaning form a group, and inside the results the group's places go to its "
        "members newest first (0: off; memvault/recall/groups.py).",
    )
    group_linkage: Literal["single", "complete"] = Field(
        default="single",
        description="single: statements linked through others join one group; complete: "
        "each member must be close to every other.",
    )
    fold_repeats: bool = Field(
        default=False,
        description="The same words from the same speaker at several times take one place "
        "in the results (the others are listed on its hit: explanation.repeats).",
    )
    group_named: bool = Field(
        default=False,
        description="Leading statements of one speaker that each name something other than "
        'the speakers are also grouped (two answers to one "which" question).',
    )
    group_kind: bool = Field(
        default=True,
        description='For a question that asks for a place ("where", "which city") or a '
        'person ("who"), leading statements of one speaker that each name one of that kind '
        "are grouped (two answers to it: the newer leads).",
    )
    group_frames: bool = Field(
        default=True,
        description="Leading statements one speaker said in the same words but for a name "
        'or a number ("I\'ve been moved under Priyanka." / "... under Osei.") are grouped, '
        "wherever they scored among the leading ones (memvault.language.claims.frame); a "
        "pair below ``group_band`` is grouped by its frame only. For a question about now the "
        "store is also searched for the longest run of words of the first three short leading "
        "statements' frames, as a phrase: a newer statement in the same words by the same "
        "speaker joins them, though no channel found it (memvault/recall/frame_search.py).",
    )
    group_endings: bool = Field(
        default=True,
        description="For a question about now, a newer statement by the same speaker that a "
        'thing the leading episodes name came to an end ("Biscuit passed away", "sold the '
        'Volvo": memvault.language.endings) joins their group and leads it, found among the '
        "episodes the recall read.",
    )
    group_many: bool = Field(
        default=False,
        description='Group also for a question that asks for several things ("how many", '
        '"what events", a plural noun after "what" / "which": memvault.language.asked). '
        "false: those are not grouped, a newer answer replacing none of the others.",
    )
    group_top: int = Field(
        default=40,
        ge=2,
        le=200,
        description="Leading episodes looked at for groups (40 since 2026-11-26: at 30 a "
        "long-chat statement of where one lives sat one place outside: docs/benchmarks.md).",
    )
    group_band: float = Field(
        default=0.75,
        ge=0,
        le=1,
        description="Only episodes scoring at least this × the best one are grouped: those "
        "that answer the question about as well as the best does.",
    )
    currency_max_facts: int = Field(default=5000, ge=1, description="Facts read per recall.")
    currency_statements: int = Field(
        default=20,
        ge=0,
        le=200,
        description="Statements of the asked attribute looked for by their usual words.",
    )
    currency_facts_checked: int = Field(
        default=10,
        ge=0,
        description="The leading facts whose source episodes are checked for newer statements.",
    )
    access_boost_step: float = Field(default=0.1, ge=0)
    access_boost_cap: int = Field(default=10, ge=0)
    log: bool = Field(
        default=True,
        description="Keep each recall in the recall log (verdicts and knowledge gaps read it).",
    )
    age_decay: bool = Field(
        default=True,
        description="false: no age decay in ranking (set by dream.hygiene.confidence_decay).",
    )
    speakers_in_query_vector: bool = Field(
        default=False,
        description="Embed the query with the names of the namespace's speakers in it (they "
        "are out of every episode's vector; docs/decisions/0010). For comparison only.",
    )
    digest_factor: float = Field(
        default=1.0,
        gt=0,
        le=1,
        description="A cold digest ranks × this (1: as its text says; it keeps what was "
        "asked of it, measured in bench/tiers_sim.py).",
    )
    headline_factor: float = Field(
        default=1.0,
        gt=0,
        le=1,
        description="A frozen headline ranks × this (1: it is found by its original meaning "
        "and words, so relevance already says what it held; docs/decisions/0012).",
    )
    access_stretch_cap: float = Field(
        default=10.0, ge=1, description="Use stretches a memory's half-life up to this many times."
    )
    access_fade_days: float = Field(
        default=30.0, gt=0, description="Days without use over which that stretch fades back to 1."
    )
    sticky_min_access: int = Field(default=5, ge=0)
    sticky_base: float = Field(default=0.95, gt=0, le=1)
    sticky_offset: float = Field(default=3.0, ge=0)
    sticky_cap: float = Field(default=30.0, ge=0)
    use_band: float = Field(
        default=1.25,
        ge=1,
        description="Access boost × anti-stickiness stays within [1/this, this]: use orders "
        "memories of similar relevance, never overturns a clear match.",
    )
    context_window: int = Field(
        default=1, ge=0, le=5, description="Neighbouring turns of a hit that share its score."
    )
    context_anchors: int = Field(
        default=10,
        ge=0,
        le=500,
        description="How many of the strongest episodes lend their neighbours a share.",
    )
    graph_max_entity_share: float = Field(
        default=0.2,
        gt=0,
        le=1,
        description="Entities named in more than this share of a namespace's episodes are "
        "too common to seed the graph channel (e.g. the two speakers of a chat).",
    )
