"""Recall: gather candidates, fuse their signals into one relevance, judge what is current
(memvault.recall.currency_step), then rank (memvault.recall.ranking: filter by time and
snooze, the composite score, an explanation for every hit).

Candidates come from dense vectors (episodes and facts), BM25 keywords, and the graph
(entities named in the query → facts about them and episodes that mention them). The query
vector is computed without the names of the namespace's speakers, as every episode's is
without its speaker (docs/decisions/0010). Every candidate then gets every signal, so fusion
compares like with like:

    base      = w_dense·cos⁺/max + w_keyword·bm25/max + w_graph·graph/max
    + actor   : w_actor when the memory's speaker (or a fact's subject) is named in the query
    + person  : w_person when the question's grammatical person points to its side of a chat
                with an assistant (memvault.language.person; off by default)
    + context : w_context × the best base of its neighbouring turns in the same session
    + session : w_session × the best score in its session (topics cluster in sessions)
    × time    : 1 + w_time × closeness to the time the question names ("two months ago")
    relevance = that sum / the best sum of this query  ∈ [0, 1]

A memory that holds a run of the query's words verbatim ranks first (memvault.recall.ranking). The
steps that need no store are functions in memvault.recall.fusion.

Score fusion beats reciprocal rank fusion here because channels differ in strength: ranks
throw that away (docs/decisions/0002-recall-fusion.md has the measurements).
"""

from __future__ import annotations

import gc
import math
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from datetime import datetime
from typing import Literal

import numpy as np

from memvault.config import RecallSettings
from memvault.embed import Embedder
from memvault.kg.model import chunk_episode, normalize_name
from memvault.kg.store import Store
from memvault.language.person import speakers_meant
from memvault.recall import fusion
from memvault.recall.candidates import Candidates, Key
from memvault.recall.currency_step import CurrencyStep, cosines, discount_lent
from memvault.recall.query import (
    keyword_terms,
    name_candidates,
    phrase_windows,
    vector_text,
)
from memvault.recall.ranking import rank
from memvault.recall.results import Hit

_settled = False
# a keyword score at most this came from words in at least half of the records (no idf)
NO_EVIDENCE = 1e-4


def _settle() -> None:
    """Once per process, after its first recall: the model, the indexes and the caches it
    loaded live as long as the process, so Python's full collections need not walk them
    again (``gc.freeze``). Unfrozen, a full pass over them took 30-40 ms here and landed on
    about every hundredth recall (bench: p99 at 100k 33.7 ms, frozen 17.5)."""
    global _settled
    if not _settled:
        _settled = True
        gc.collect()
        gc.freeze()


class Recaller:
    def __init__(
        self,
        *,
        store: Store,
        embedder: Embedder,
        settings: RecallSettings,
        single_valued: Callable[[str], bool] = lambda predicate: False,
        last_dream: Callable[[str], datetime | None] = lambda namespace: None,
    ):
        self.store, self.embedder, self.s = store, embedder, settings
        self.single_valued = single_valued
        self.last_dream = last_dream  # episodes written later are judged provisionally
        # agents ask the same things again: a query's vector is kept (bounded, oldest out)
        self._query_vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._sizes: dict[str, tuple[int, int, int]] = {}  # ns → (watermark, episodes, facts)
        self._spoke: dict[str, tuple[int, set[str]]] = {}  # namespace → (watermark, speakers)
        self.currency = CurrencyStep(store, settings, single_valued, last_dream)

    def recall(
        self,
        namespace: str,
        query: str,
        *,
        k: int,
        now: datetime,
        as_of: datetime | None = None,
        mark: int | None = None,
    ) -> list[Hit]:
        """``mark``: the namespace's watermark when the caller has just read it (one read per
        recall: the caches of speakers and sizes are keyed on it)."""
        at = as_of or now
        mark = self.store.watermark(namespace) if mark is None else mark
        spoke = self._speakers(namespace, mark)
        speakers = () if self.s.speakers_in_query_vector else spoke
        vector = self._embed_query(vector_text(query, speakers))
        n = max(self.s.candidates, 3 * k)
        c = Candidates(namespace)
        c.mark = mark
        self._gather(c, query, vector, n)
        if not c.keys:
            return []
        self._load(c, vector)
        fusion.quoted(c, query, self.s.phrase_words)
        base = fusion.base(c, self.s)
        score = self._context(c, base, vector)
        score = fusion.actor_bonus(c, score, c.named(), self.s.channel_weights)
        meant = speakers_meant(query, {normalize_name(n) for n in spoke})
        score = fusion.person_bonus(c, score, meant, self.s.channel_weights)
        score = fusion.session_lift(c, score, self.s.channel_weights)
        score = fusion.time_lift(c, score, query, at, self.s.channel_weights)
        verdicts = self.currency.judge(c, query, vector, at, score, k)
        verdicts.newest = self.currency.newest_groups(c, query, score, verdicts.episode_answers)
        discount_lent(c, score, verdicts)
        hits = rank(c, score, at, verdicts, k, self.s)
        if self.s.freeze_gc:
            _settle()
        return hits

    def _speakers(self, namespace: str, now_mark: int) -> set[str]:
        """Everyone who spoke in the namespace, read from the episodes written since the last
        recall (a name whose turns were all deleted stays: it only leaves a query vector)."""
        mark, names = self._spoke.get(namespace, (0, set()))
        if now_mark != mark:
            mark, new = self.store.speakers_since(namespace, mark)
            names = names | new
            self._spoke[namespace] = (mark, names)
        return names

    def _embed_query(self, query: str) -> np.ndarray:
        cache = self._query_vectors
        if query in cache:
            cache.move_to_end(query)
            return cache[query]
        vector = self.embedder.embed([query])[0]
        cache[query] = vector
        if len(cache) > self.s.query_cache:
            cache.popitem(last=False)
        return vector

    # -- candidates -----------------------------------------------------------------------
    def _gather(self, c: Candidates, query: str, vector: np.ndarray, n: int) -> None:
        terms = keyword_terms(query)
        for kind in ("episode", "fact"):
            nearest = self.store.vector_topk(c.ns, kind, vector, n)
            if kind == "episode" and self.s.chunks:
                nearest = self._with_chunks(c.ns, nearest, vector, n)
            c.add_channel("dense", kind, nearest)
            found = self.store.keyword_topk(c.ns, kind, terms, n)
            c.add_channel("keyword", kind, self._telling(c, kind, found))
        c.query_entities = self.store.find_entities(c.ns, name_candidates(query))
        self._graph(c, n)
        windows = phrase_windows(query, self.s.phrase_words)
        if windows:  # memories that may quote the query (a phrase search where one exists)
            quoting = self.store.keyword_topk(c.ns, "episode", windows, n)
            c.quoting = [rid for rid, _ in quoting]
            for rid in c.quoting:
                c.keys.setdefault(("episode", rid), None)

    def _with_chunks(
        self, namespace: str, nearest: list[tuple[str, float]], vector: np.ndarray, n: int
    ) -> list[tuple[str, float]]:
        """A long episode is as near as its nearest part: the chunks' vectors (what the
        embedder would not read of a long text, memvault.kg.model.Episode.chunk_texts) lend
        their episode their cosine when it is higher than its own."""
        chunks = self.store.vector_topk(namespace, "chunk", vector, n)
        if not chunks:
            return nearest
        best = dict(nearest)
        for rid, score in chunks:
            episode = chunk_episode(rid)
            if score > best.get(episode, -2.0):
                best[episode] = score
        return sorted(best.items(), key=lambda kv: -kv[1])[:n]

    def _telling(
        self, c: Candidates, kind: Literal["episode", "fact"], found: list[tuple[str, float]]
    ) -> list[tuple[str, float]]:
        """Keyword matches without those that tell nothing apart. bm25 gives a word found in
        at least half of the records no idf (FTS5 floors it at 1e-6), so a record that
        matched only such words scores about 1e-6; when those are most of the namespace's
        records they are no evidence, and as the channel's best they would each get its
        full weight (a new vault of one speaker's turns: "what sports does Maya do?"
        matched every turn on "Maya": decision 0010). A few such matches among many
        records (one of two, or stats shared with other namespaces) stay."""
        weak = sum(1 for _, score in found if score <= NO_EVIDENCE)
        if weak == 0 or 2 * weak <= self._total(c.ns, kind, c.mark):
            return found
        return [(rid, score) for rid, score in found if score > NO_EVIDENCE]

    def _total(self, namespace: str, kind: Literal["episode", "fact"], mark: int) -> int:
        cached = self._sizes.get(namespace)
        if cached is None or cached[0] != mark:
            counts = self.store.counts(namespace)
            cached = (mark, counts["episodes"], counts["facts"])
            self._sizes[namespace] = cached
        return max(cached[1] if kind == "episode" else cached[2], 1)

    def _graph(self, c: Candidates, n: int) -> None:
        """Episodes and facts tied to the entities the query names; rare entities weigh more,
        and entities in a large share of all episodes (a chat's speakers) seed nothing."""
        total = self._total(c.ns, "episode", c.mark)
        informative = [
            e for e in c.query_entities if e.mention_count <= self.s.graph_max_entity_share * total
        ]
        if not informative:
            return
        idf = {e.id: math.log(1.0 + total / max(e.mention_count, 1)) for e in informative}
        names = {e.id: e.name for e in informative}
        episode_score: dict[str, float] = defaultdict(float)
        for episode_id, entity_id in self.store.episodes_mentioning(
            c.ns, list(idf), limit=n * len(idf)
        ):
            episode_score[episode_id] += idf[entity_id]
            c.entities[("episode", episode_id)].append(names[entity_id])
        ranked = sorted(episode_score.items(), key=lambda kv: -kv[1])[:n]
        c.add_channel("graph", "episode", ranked)
        fact_score = {}
        for fact in self.store.facts_about(c.ns, list(idf)):
            fact_score[fact.id] = (
                idf.get(fact.subject_id, 0.0) + idf.get(fact.object_id or "", 0.0)
            ) * fact.confidence
            c.entities[("fact", fact.id)] = [fact.subject, fact.object]
        c.add_channel("graph", "fact", sorted(fact_score.items(), key=lambda kv: -kv[1])[:n])

    def _load(self, c: Candidates, vector: np.ndarray) -> None:
        """Fetch every candidate record and give each its exact cosine."""
        ids = c.ids("episode")
        c.episodes.update({e.id: e for e in self.store.get_episodes(c.ns, ids)})
        c.facts.update({f.id: f for f in self.store.get_facts(c.ns, c.ids("fact"))})
        for kind in ("episode", "fact"):
            missing = [i for i in c.ids(kind) if (kind, i) not in c.signal["dense"]]
            cosines(self.store, c, kind, missing, vector)

    # -- fusion ---------------------------------------------------------------------------
    def _context(
        self, c: Candidates, base: dict[Key, float], vector: np.ndarray
    ) -> dict[Key, float]:
        """Each turn also takes a share of its best neighbour's base score; neighbours of the
        strongest episodes join the candidates (an answer often sits one turn after the
        question that names the topic)."""
        weight = self.s.channel_weights.get("context", 0.0)
        if self.s.context_window <= 0 or weight <= 0:
            return dict(base)
        strongest = sorted((k for k in base if k[0] == "episode"), key=lambda k: -base[k])
        anchors = [c.episodes[i] for _, i in strongest[: self.s.context_anchors] if i in c.episodes]
        around = self.store.session_neighbours(c.ns, anchors, self.s.context_window)
        fresh = [i for ids in around.values() for i in ids if i not in c.episodes]
        if fresh:
            c.episodes.update({e.id: e for e in self.store.get_episodes(c.ns, fresh)})
            cosines(self.store, c, "episode", fresh, vector)
            dense = sorted((v for v in c.signal["dense"].values() if v > 0), reverse=True)
            for i in fresh:
                key = ("episode", i)
                c.keys.setdefault(key, None)
                base[key] = fusion.dense_base(c.signal["dense"].get(key, 0.0), dense, self.s)
        score = dict(base)
        for anchor_id, ids in around.items():
            for i in ids:
                lift = weight * base.get(("episode", anchor_id), 0.0)
                if lift > c.signal["context"].get(("episode", i), 0.0):
                    c.signal["context"][("episode", i)] = lift
                    c.lent[("context", ("episode", i))] = anchor_id
        for key, lift in c.signal["context"].items():
            score[key] = score.get(key, 0.0) + lift
        return score
