"""Current attitudes as recall hits (kind ``persona``), for a persona-aware recall: the ones
whose words or category the query shares, explained. They come after the ``k`` memories, never
instead of them."""

from __future__ import annotations

from collections.abc import Sequence

from memvault.persona.layer import AttitudeView
from memvault.persona.rules import category_of, content_words
from memvault.recall.results import Explanation, Hit
from memvault.recall.scoring import Factors


def persona_hits(views: Sequence[AttitudeView], query: str, limit: int) -> list[Hit]:
    asked = set(content_words(query))
    asked_category = category_of(query)
    out: list[Hit] = []
    for v in views:
        a = v.attitude
        words = set(content_words(a.statement)) | set(a.topic.split())
        overlap = len(asked & words) / max(len(asked), 1)
        relevance = overlap + (0.5 if asked_category == a.category else 0.0)
        if relevance <= 0:
            continue
        factors = Factors(
            relevance=relevance,
            importance=1.0,
            age_days=0.0,
            decay=1.0,
            access_boost=1.0,
            stickiness=1.0,
            confidence=v.confidence_now,
            currency_note=f"current attitude ({a.category.value}, version {a.version})",
        )
        factors.score = relevance * v.confidence_now
        out.append(
            Hit(
                kind="persona",
                id=a.id,
                text=a.statement,
                score=factors.score,
                source_episode_ids=[e.episode_id for e in a.evidence if e.episode_id],
                explanation=Explanation(
                    signals={
                        "word_overlap": overlap,
                        "category": float(asked_category == a.category),
                    },
                    factors=factors,
                ),
            )
        )
    return sorted(out, key=lambda h: -h.score)[:limit]
