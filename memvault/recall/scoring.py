"""The composite score of a recall hit, factor by factor. Pure functions of a record, the
query's relevance and ``now``; the settings hold every constant."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from memvault.config import RecallSettings
from memvault.kg.model import Episode, Fact, MemoryType
from memvault.recall.currency import Verdict


@dataclass(slots=True)
class Factors:
    """What made a hit's score. A plain dataclass: one is built for every candidate of every
    recall (a few hundred), and a validated model cost a tenth of a recall at 100k episodes;
    the hit's explanation (a pydantic model) still serialises it."""

    relevance: float
    importance: float
    age_days: float
    decay: float
    access_boost: float
    stickiness: float
    use: float = 1.0  # access boost × anti-stickiness, bounded by ``use_band``
    stretch: float = 1.0  # half-life × this by recent use
    fidelity: float = 1.0  # a digest or headline ranks below the text it was
    confidence: float = 1.0  # effective confidence, facts only
    currency: float = 1.0  # replaced / contested below 1, current or answering above
    currency_note: str | None = None
    quoted: int = 0  # words of the query the memory holds verbatim, in one run (ranked first)
    score: float = 0.0


def age_days(then: datetime, now: datetime) -> float:
    return max((now - then).total_seconds() / 86400.0, 0.0)


def decay(days: float, lam: float) -> float:
    return math.exp(-lam * days)


def floored(factor: float, floor: float) -> float:
    """``factor`` (0..1) moved into ``floor``..1: a penalty that orders, never buries."""
    return floor + (1.0 - floor) * factor


def half_life_stretch(
    uses: int, last_used: datetime | None, now: datetime, cap: float, fade_days: float
) -> float:
    """How far use stretches a memory's half-life: each use adds one base half-life, up to
    ``cap`` times the base, and the stretch fades back to 1 over ``fade_days`` without new
    use. The closed loop of ``record_access``: a memory that keeps
    being used decays slower, and the tiers and the prune read the same number."""
    if uses <= 0 or last_used is None:
        return 1.0
    fade = max(0.0, 1.0 - age_days(last_used, now) / fade_days)
    return 1.0 + min(float(uses), cap - 1.0) * fade


def stretch_of(r: Episode | Fact, now: datetime, s: RecallSettings) -> float:
    """The stretch from use: an episode's recorded accesses and confirmations (feedback
    ``reinforce`` / ``correct``); a fact's accesses only, since a fact's confirmations are
    mostly restatements on the write path, which already restart its decay
    (``last_reinforced_at``): counting them again favoured values restated often."""
    if isinstance(r, Fact):
        return half_life_stretch(
            r.access_count, r.last_accessed, now, s.access_stretch_cap, s.access_fade_days
        )
    used = [t for t in (r.last_accessed, r.last_reinforced_at) if t is not None]
    return half_life_stretch(
        r.access_count + r.reinforced_count,
        max(used) if used else None,
        now,
        s.access_stretch_cap,
        s.access_fade_days,
    )


def access_boost(access_count: int, s: RecallSettings) -> float:
    return 1.0 + s.access_boost_step * min(access_count, s.access_boost_cap)


def stickiness_ratio(access_count: int, reinforced_count: int) -> float:
    """How much more often a memory is fetched than confirmed useful."""
    return access_count / max(reinforced_count, 1)


def anti_stickiness(access_count: int, reinforced_count: int, s: RecallSettings) -> float:
    """Memories fetched often but rarely confirmed sink, so they stop crowding out others."""
    if access_count < s.sticky_min_access:
        return 1.0
    excess = max(stickiness_ratio(access_count, reinforced_count) - s.sticky_offset, 0.0)
    return s.sticky_base ** min(excess, s.sticky_cap)


def bounded_use(boost: float, stickiness: float, s: RecallSettings) -> float:
    """What use does to a rank: the access boost times the anti-stickiness penalty, kept
    within [1 / ``use_band``, ``use_band``]. Fetch counts are mostly what recall showed, not
    what helped: they order memories of similar relevance and never overturn a clearly better
    match, nor bury a clear answer that is asked for often (bench/sticky_feedback.py)."""
    return min(max(boost * stickiness, 1.0 / s.use_band), s.use_band)


def score_episode(
    e: Episode, relevance: float, now: datetime, s: RecallSettings, verdict: Verdict | None = None
) -> Factors:
    days = age_days(e.occurred_at, now)
    lam = s.decay_per_day.get(e.type, s.decay_per_day[MemoryType.EPISODIC])
    stretch = stretch_of(e, now, s)
    f = Factors(
        relevance=max(relevance, 0.0),
        importance=e.importance,
        age_days=days,
        decay=floored(decay(days / stretch, lam), s.decay_floor) if s.age_decay else 1.0,
        stretch=stretch,
        access_boost=access_boost(e.access_count, s),
        stickiness=anti_stickiness(e.access_count, e.reinforced_count, s),
        currency=verdict.factor if verdict else 1.0,
        currency_note=verdict.why if verdict else None,
    )
    level = (e.metadata.get("digest") or {}).get("level") if e.metadata else None
    if level:
        f.fidelity = s.headline_factor if level == "headline" else s.digest_factor
    f.use = bounded_use(f.access_boost, f.stickiness, s)
    f.score = f.relevance * f.importance * f.decay * f.use * f.currency * f.fidelity
    return f


def score_fact(
    fact: Fact, relevance: float, now: datetime, s: RecallSettings, verdict: Verdict | None = None
) -> Factors:
    stretch = stretch_of(fact, now, s)
    f = Factors(
        relevance=max(relevance, 0.0),
        importance=fact.importance,
        age_days=age_days(fact.valid_at, now),
        decay=1.0,  # facts age through effective confidence
        access_boost=access_boost(fact.access_count, s),
        stickiness=anti_stickiness(fact.access_count, fact.reinforced_count, s),
        stretch=stretch,
        confidence=(
            fact.effective_confidence(now, s.fact_half_life_days * stretch)
            if s.age_decay
            else fact.confidence
        ),
        currency=verdict.factor if verdict else 1.0,
        currency_note=verdict.why if verdict else None,
    )
    f.use = bounded_use(f.access_boost, f.stickiness, s)
    f.score = f.relevance * f.importance * f.use * f.confidence * f.currency
    return f
