"""Recall: candidates from five channels, fused by reciprocal rank, filtered by time and
snooze, scored by the composite, explained.

Channels: ``dense`` (cosine over episode and fact vectors), ``keyword`` (BM25 over their
text), ``graph`` (entities named in the query → facts about them and episodes that mention
them, rarer entities weighing more), ``context`` (turns next to a strong episode in its
session: answers often sit one turn after the question that names the topic).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from memvault.config import RecallSettings
from memvault.embed import Embedder
from memvault.kg.model import Entity, Episode, Fact
from memvault.kg.store import Store
from memvault.recall.fusion import rrf
from memvault.recall.query import keyword_terms, name_candidates
from memvault.recall.scoring import Factors, score_episode, score_fact

Key = tuple[str, str]  # (kind, id)


class ChannelRank(BaseModel):
    rank: int
    score: float


class Explanation(BaseModel):
    channels: dict[str, ChannelRank] = Field(default_factory=dict)
    rrf: float = 0.0
    entities: list[str] = Field(default_factory=list)
    factors: Factors

    def text(self) -> str:
        f = self.factors
        via = ", ".join(f"{name} #{c.rank} ({c.score:.3f})" for name, c in self.channels.items())
        parts = [
            f"relevance {f.relevance:.3f} [rrf {self.rrf:.4f} via {via}]",
            f"importance {f.importance:.2f}",
            f"decay {f.decay:.3f} ({f.age_days:.0f} days)",
            f"access boost {f.access_boost:.2f}",
            f"anti-stickiness {f.stickiness:.3f}",
        ]
        if f.confidence != 1.0:
            parts.append(f"effective confidence {f.confidence:.3f}")
        if self.entities:
            parts.append("entities: " + ", ".join(self.entities))
        return (
            f"score {f.score:.4f} = "
            + " × ".join(parts[:5])
            + ("; " + "; ".join(parts[5:]) if parts[5:] else "")
        )


class Hit(BaseModel):
    kind: Literal["episode", "fact"]
    id: str
    text: str
    score: float
    source_episode_ids: list[str]
    episode: Episode | None = None
    fact: Fact | None = None
    explanation: Explanation


@dataclass
class _Candidates:
    channels: dict[str, list[Key]]
    scores: dict[tuple[str, Key], ChannelRank]
    entities: dict[Key, list[str]]


class Recaller:
    def __init__(self, *, store: Store, embedder: Embedder, settings: RecallSettings):
        self.store, self.embedder, self.s = store, embedder, settings
        self._sizes: dict[str, tuple[int, int]] = {}  # namespace → (watermark, episodes)

    def recall(
        self,
        namespace: str,
        query: str,
        *,
        k: int,
        now: datetime,
        as_of: datetime | None = None,
    ) -> list[Hit]:
        at = as_of or now
        vector = self.embedder.embed([query])[0]
        n = max(self.s.candidates, 3 * k)
        cands = self._candidates(namespace, query, vector, n)
        weights = {
            name: self.s.channel_weights.get(name.split(":")[0], 1.0) for name in cands.channels
        }
        fused = rrf(cands.channels, weights, self.s.rrf_k)
        self._add_context(namespace, cands, fused, weights, k)
        ranked = sorted(fused.items(), key=lambda kv: -kv[1])
        if not ranked:
            return []
        best = ranked[0][1]
        hits: list[Hit] = []
        window = max(4 * k, 40)
        for start in range(0, len(ranked), window):
            hits.extend(self._score(namespace, ranked[start : start + window], best, cands, at))
            if len(hits) >= k:
                break
        hits.sort(key=lambda h: (-h.score, h.id))
        return hits[:k]

    # -- candidates -----------------------------------------------------------------------
    def _candidates(self, namespace: str, query: str, vector: np.ndarray, n: int) -> _Candidates:
        c = _Candidates(channels={}, scores={}, entities={})
        terms = keyword_terms(query)
        for kind in ("episode", "fact"):
            dense = self.store.vector_topk(namespace, kind, vector, n)  # type: ignore[arg-type]
            self._channel(c, f"dense:{kind}", kind, dense)
            keyword = self.store.keyword_topk(namespace, kind, terms, n)  # type: ignore[arg-type]
            self._channel(c, f"keyword:{kind}", kind, keyword)
        self._graph(c, namespace, query, n)
        return c

    @staticmethod
    def _channel(c: _Candidates, name: str, kind: str, ranked: Sequence[tuple[str, float]]) -> None:
        if not ranked:
            return
        keys = [(kind, i) for i, _ in ranked]
        c.channels[name] = keys
        for rank, (key, (_, score)) in enumerate(zip(keys, ranked, strict=True), start=1):
            c.scores[(name, key)] = ChannelRank(rank=rank, score=score)

    def _episode_total(self, namespace: str) -> int:
        mark = self.store.watermark(namespace)
        cached = self._sizes.get(namespace)
        if cached is None or cached[0] != mark:
            cached = (mark, self.store.counts(namespace)["episodes"])
            self._sizes[namespace] = cached
        return max(cached[1], 1)

    def _graph(self, c: _Candidates, namespace: str, query: str, n: int) -> None:
        entities = self.store.find_entities(namespace, name_candidates(query))
        if not entities:
            return
        total = self._episode_total(namespace)
        informative = [
            e for e in entities if e.mention_count <= self.s.graph_max_entity_share * total
        ]
        if not informative:
            return
        idf = {e.id: math.log(1.0 + total / max(e.mention_count, 1)) for e in informative}
        names = {e.id: e.name for e in informative}
        episode_score: dict[str, float] = {}
        episode_names: dict[str, list[str]] = {}
        for episode_id, entity_id in self.store.episodes_mentioning(
            namespace, list(idf), limit=n * len(idf)
        ):
            episode_score[episode_id] = episode_score.get(episode_id, 0.0) + idf[entity_id]
            episode_names.setdefault(episode_id, []).append(names[entity_id])
        ranked_eps = sorted(episode_score.items(), key=lambda kv: -kv[1])[:n]
        self._channel(c, "graph:episode", "episode", ranked_eps)
        for episode_id, _ in ranked_eps:
            c.entities[("episode", episode_id)] = episode_names[episode_id]
        self._graph_facts(c, namespace, informative, idf, n)

    def _graph_facts(
        self,
        c: _Candidates,
        namespace: str,
        entities: list[Entity],
        idf: dict[str, float],
        n: int,
    ) -> None:
        fact_score: dict[str, float] = {}
        for fact in self.store.facts_about(namespace, [e.id for e in entities]):
            weight = idf.get(fact.subject_id, 0.0) + idf.get(fact.object_id or "", 0.0)
            fact_score[fact.id] = weight * fact.confidence
            c.entities[("fact", fact.id)] = [fact.subject, fact.object]
        ranked = sorted(fact_score.items(), key=lambda kv: -kv[1])[:n]
        self._channel(c, "graph:fact", "fact", ranked)

    def _add_context(
        self,
        namespace: str,
        c: _Candidates,
        fused: dict[Key, float],
        weights: dict[str, float],
        k: int,
    ) -> None:
        """Neighbours of the strongest episodes join as a ``context`` channel ranked like
        the episode they sit next to."""
        if self.s.context_window <= 0 or not fused:
            return
        top = [
            key for key, _ in sorted(fused.items(), key=lambda kv: -kv[1]) if key[0] == "episode"
        ][: max(2 * k, 10)]
        episodes = self.store.get_episodes(namespace, [i for _, i in top])
        neighbours = self.store.session_neighbours(namespace, episodes, self.s.context_window)
        ranked: list[Key] = []
        for _, episode_id in top:
            ranked.extend(("episode", nid) for nid in neighbours.get(episode_id, []))
        ranked = list(dict.fromkeys(ranked))
        if not ranked:
            return
        c.channels["context"] = ranked
        weights["context"] = self.s.channel_weights.get("context", 0.5)
        for rank, key in enumerate(ranked, start=1):
            c.scores[("context", key)] = ChannelRank(rank=rank, score=0.0)
            fused[key] = fused.get(key, 0.0) + weights["context"] / (self.s.rrf_k + rank)

    # -- filter and score -----------------------------------------------------------------
    def _score(
        self,
        namespace: str,
        ranked: list[tuple[Key, float]],
        best: float,
        c: _Candidates,
        at: datetime,
    ) -> list[Hit]:
        ep_ids = [i for (kind, i), _ in ranked if kind == "episode"]
        fact_ids = [i for (kind, i), _ in ranked if kind == "fact"]
        episodes = {e.id: e for e in self.store.get_episodes(namespace, ep_ids)}
        facts = {f.id: f for f in self.store.get_facts(namespace, fact_ids)}
        hits: list[Hit] = []
        for key, fused in ranked:
            kind, rid = key
            relevance = fused / best
            if kind == "episode":
                e = episodes.get(rid)
                if e is None or not _visible_episode(e, at):
                    continue
                factors = score_episode(e, relevance, at, self.s)
                hits.append(
                    Hit(
                        kind="episode",
                        id=rid,
                        text=e.content,
                        score=factors.score,
                        source_episode_ids=[rid],
                        episode=e,
                        explanation=self._explain(c, key, fused, factors),
                    )
                )
            else:
                f = facts.get(rid)
                if f is None or not _visible_fact(f, at):
                    continue
                factors = score_fact(f, relevance, at, self.s)
                hits.append(
                    Hit(
                        kind="fact",
                        id=rid,
                        text=f.statement,
                        score=factors.score,
                        source_episode_ids=list(f.source_episode_ids),
                        fact=f,
                        explanation=self._explain(c, key, fused, factors),
                    )
                )
        return hits

    @staticmethod
    def _explain(c: _Candidates, key: Key, fused: float, factors: Factors) -> Explanation:
        channels = {name: c.scores[(name, key)] for name in c.channels if (name, key) in c.scores}
        return Explanation(
            channels=channels, rrf=fused, entities=c.entities.get(key, []), factors=factors
        )


def _visible_episode(e: Episode, at: datetime) -> bool:
    if e.expired_at is not None or e.occurred_at > at:
        return False
    return e.cooldown_until is None or e.cooldown_until <= at


def _visible_fact(f: Fact, at: datetime) -> bool:
    if not f.is_valid_at(at):
        return False
    return f.cooldown_until is None or f.cooldown_until <= at
