"""A namespace's entity graph, read from the store: composite edges, Leiden communities and
personalised PageRank, for the CLI, the SDK and the dream's signal stage."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from memvault.config import GraphSettings
from memvault.dream.workspace import Workspace
from memvault.kg.centrality import personalized_pagerank
from memvault.kg.communities import Partition, leiden, scan
from memvault.kg.edge_ops import Edge, composite_edges
from memvault.kg.model import normalize_name
from memvault.kg.store import Store


@dataclass
class GraphView:
    ws: Workspace
    vectors: dict[str, np.ndarray]
    settings: GraphSettings

    @classmethod
    def load(cls, store: Store, ws: Workspace, settings: GraphSettings) -> GraphView:
        vectors = store.get_vectors(ws.namespace, "entity", list(ws.entities))
        return cls(ws, vectors, settings)

    def nodes(self) -> list[str]:
        return sorted(self.ws.entities)

    def edges(self) -> list[Edge]:
        ids = self.nodes()
        s = self.settings
        live = {
            ep: sorted(ents)
            for ep, ents in self.ws.mentions.items()
            if (e := self.ws.episodes.get(ep)) is not None and e.expired_at is None
        }
        return composite_edges(
            ids,
            [self.ws.entities[i].type.value for i in ids],
            live,
            {ep: self.ws.episodes[ep].session_id for ep in live},
            self.vectors,
            weights=s.edge_weights,
            prior=s.type_affinity,
            prior_default=s.type_affinity_default,
            threshold=s.edge_threshold,
        )

    def communities(
        self, edges: list[Edge] | None = None, *, resolution: float | None = None
    ) -> Partition:
        return leiden(
            self.nodes(),
            self.edges() if edges is None else edges,
            resolution=resolution or self.settings.resolution,
            min_size=self.settings.min_community_size,
        )

    def scan(self, edges: list[Edge] | None = None) -> list[Partition]:
        return scan(
            self.nodes(),
            self.edges() if edges is None else edges,
            self.settings.resolutions,
            min_size=self.settings.min_community_size,
        )

    def ppr(self, seed_names: list[str], top: int = 10) -> list[tuple[str, float]]:
        wanted = {normalize_name(n) for n in seed_names}
        seeds = [
            e.id
            for e in self.ws.entities.values()
            if wanted & {normalize_name(n) for n in e.names()}
        ]
        edges = [(e.a, e.b, e.composite) for e in self.edges()]
        return personalized_pagerank(self.nodes(), edges, seeds, top=top)

    def describe(self, partition: Partition, top: int = 5) -> list[dict[str, Any]]:
        """Each community with its most mentioned members and the predicates of its facts
        (the offline summary)."""
        out = []
        for n, members in enumerate(partition.communities):
            inside = set(members)
            ranked = sorted(members, key=lambda i: (-self.ws.entities[i].mention_count, i))
            predicates = Counter(
                f.predicate for f in self.ws.live_facts() if f.subject_id in inside
            )
            out.append(
                {
                    "community": n,
                    "size": len(members),
                    "top": [self.ws.entities[i].name for i in ranked[:top]],
                    "predicates": [p for p, _ in predicates.most_common(3)],
                    "members": members,
                }
            )
        return out


def edge_json(view: GraphView, edge: Edge) -> dict[str, Any]:
    names = view.ws.entities
    return {
        "a": names[edge.a].name,
        "b": names[edge.b].name,
        "composite": edge.composite,
        "signals": edge.signals,
    }
