"""A namespace's entity graph, read from the store: composite edges, Leiden communities and
personalised PageRank, for the CLI, the SDK and the dream's signal stage."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from memvault.changes.workspace import Workspace
from memvault.config import GraphSettings
from memvault.kg.centrality import personalized_pagerank
from memvault.kg.communities import Partition, leiden, scan
from memvault.kg.discovery import Discovery, cross_community, indirect_strong, knowledge_gaps
from memvault.kg.edge_ops import Edge, co_mention_counts, composite_edges
from memvault.kg.model import normalize_name
from memvault.kg.store import SearchStore
from memvault.llm.port import LLM
from memvault.llm.prompts import summarize_communities_v1


@dataclass
class GraphView:
    ws: Workspace
    vectors: dict[str, np.ndarray]
    settings: GraphSettings

    @classmethod
    def load(cls, store: SearchStore, ws: Workspace, settings: GraphSettings) -> GraphView:
        vectors = store.get_vectors(ws.namespace, "entity", list(ws.entities))
        return cls(ws, vectors, settings)

    def nodes(self) -> list[str]:
        return sorted(self.ws.entities)

    def live_mentions(self) -> dict[str, list[str]]:
        """episode id → the entities it names, for episodes the vault still holds."""
        return {
            ep: sorted(ents)
            for ep, ents in self.ws.mentions.items()
            if (e := self.ws.episodes.get(ep)) is not None and e.expired_at is None
        }

    def co_mentions(self) -> dict[tuple[str, str], int]:
        return co_mention_counts(self.nodes(), self.live_mentions())

    def edges(self) -> list[Edge]:
        ids = self.nodes()
        live = self.live_mentions()
        return composite_edges(
            ids,
            [self.ws.entities[i].type for i in ids],
            live,
            {ep: self.ws.episodes[ep].session_id for ep in live},
            self.vectors,
            self.settings,
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

    def discover(
        self,
        edges: list[Edge],
        partition: Partition,
        previous: set[tuple[str, str]] | None,
        co_mentions: dict[tuple[str, str], int] | None = None,
    ) -> list[Discovery]:
        """Cross-community bridges, strong indirect links and knowledge gaps, strongest
        first, at most ``discovery_max_per_kind`` of each."""
        s = self.settings
        membership = {m: n for n, members in enumerate(partition.communities) for m in members}
        nodes = self.nodes()
        co_mentions = self.co_mentions() if co_mentions is None else co_mentions
        found = {
            "cross_community": cross_community(
                edges,
                membership,
                previous,
                s.discovery_k,
                co_mentions=co_mentions,
                min_repeats=s.bridge_min_mentions,
            ),
            "indirect_strong": indirect_strong(nodes, edges, s.discovery_k),
            "knowledge_gap": knowledge_gaps(
                nodes,
                {i: e.type for i, e in self.ws.entities.items()},
                {i: e.mention_count for i, e in self.ws.entities.items()},
                edges,
                s.discovery_k,
                co_mentions=co_mentions,
            ),
        }
        speakers = self.ws.speaker_entities()  # the people talking are no finding
        out: list[Discovery] = []
        for items in found.values():
            items = [d for d in items if not speakers & set(d.entities)]
            items.sort(key=lambda d: (-d.score, d.entities))
            out += items[: s.discovery_max_per_kind]
        return out

    def discovery_json(self, d: Discovery) -> dict[str, Any]:
        names = [self.ws.entities[i].name for i in d.entities]
        text = {
            "cross_community": "{0} and {1} are now linked, across two communities",
            "indirect_strong": "{0} and {1} are strongly linked through others, never directly",
            "knowledge_gap": "{0} comes up often but is connected to little",
        }[d.kind].format(*names, "")
        return {
            "kind": d.kind,
            "entities": names,
            "entity_ids": list(d.entities),
            "score": d.score,
            "text": text,
            "evidence": d.evidence,
        }

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


def summarize(
    view: GraphView, communities: list[dict[str, Any]], llm: LLM, *, top: int, facts: int = 8
) -> int:
    """A title and a summary for the ``top`` largest communities, in one LLM call (offline:
    their top entities and facts). Adds ``title`` / ``summary`` in place; returns how many."""
    chosen = communities[:top]
    if not chosen:
        return 0
    statements: dict[int, list[str]] = {}
    for c in chosen:
        inside = set(c["members"])
        ranked = sorted(
            (f for f in view.ws.live_facts() if f.subject_id in inside),
            key=lambda f: (-f.importance, -f.confidence, f.id),
        )
        statements[c["community"]] = [f.statement for f in ranked[:facts]]
    prompt = summarize_communities_v1(
        [
            {"community": c["community"], "top": c["top"], "facts": statements[c["community"]]}
            for c in chosen
        ]
    )
    answer = llm.complete(prompt, call_site="dream.summarize")
    by_id = {s.community: s for s in answer.summaries}
    done = 0
    for c in chosen:
        if (found := by_id.get(c["community"])) is not None:
            c["title"], c["summary"] = found.title, found.summary
            done += 1
    return done


def edge_json(view: GraphView, edge: Edge) -> dict[str, Any]:
    names = view.ws.entities
    return {
        "a": names[edge.a].name,
        "b": names[edge.b].name,
        "composite": edge.composite,
        "signals": edge.signals,
    }
