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
                with an assistant (memvault.language.person)
    + context : w_context × the best base of its neighbouring turns in the same session
    + session : w_session × the best score in its session (topics cluster in sessions)
    × time    : 1 + w_time × closeness to the time the question names ("two months ago"),
                of the turn's own time or a time its words name ("last month")
    × when    : 1 + w_when for a turn that names a time of its own ("last Friday") when the
                question asks when
    × amount  : 1 + w_amount for a turn that says a number ("twelve guests") when the
                question asks how many or how much of something ("How old is Jolene?")
    × where   : 1 + w_where for a turn that names a place ("Signed the lease in Ealing") when
                the question asks where ("Where am I living at the moment?")
    × thin    : 1 − w_thin for a turn of at most one word that is not a stop word ("hello"),
                unless it shares a word with the query or is quoted
    × asks    : 1 − w_asks for a conversation turn that only asks ("Cool! What type of music
                do you play?"), unless the query asks about asking or quotes it
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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Literal

import numpy as np

from memvault.changes.docs import RUN, judged_until
from memvault.config import RecallSettings
from memvault.embed import Embedder
from memvault.embed.port import lexical
from memvault.embed.steady import steady
from memvault.ingest.catchup import PENDING
from memvault.kg.model import normalize_name
from memvault.kg.reads import NamespaceView, RecallQuery, RecallRead, informative
from memvault.kg.roles import NO_EVIDENCE
from memvault.kg.store import Doc, Store
from memvault.kg.update_questions import asked_attributes
from memvault.kg.updates import STATEMENT_WORDS
from memvault.language.asked import two_things
from memvault.language.person import speakers_meant
from memvault.language.when import looked_back
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
KINDS: tuple[Literal["episode", "fact"], ...] = ("episode", "fact")


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
    """Recall over the store's composed reads (memvault.kg.reads): the candidates of the
    query, the session neighbours of the strongest, what the leading ones name, and the
    episodes a currency verdict leads to: four calls of the store per recall; a fifth when a
    speaker new since the last recall is named in the query (its vector is computed again
    without the name)."""

    def __init__(
        self,
        *,
        store: Store,
        embedder: Embedder,
        settings: RecallSettings,
        single_valued: Callable[[str], bool] = lambda predicate: False,
        opposites: Iterable[frozenset[str]] = (),
    ):
        """``opposites``: predicate pairs that contradict about one object (the ontology's:
        likes / dislikes): the older of two still current is contested before any dream."""
        self.store, self.embedder, self.s = store, embedder, settings
        self.single_valued = single_valued
        self.opposites = frozenset(opposites)
        # agents ask the same things again: a query's vector is kept (bounded, oldest out)
        self._query_vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._views: dict[str, NamespaceView] = {}  # the namespaces as of their last recall
        self.currency = CurrencyStep(store, settings, single_valued, self.opposites)

    def recall(
        self, namespace: str, query: str, *, k: int, now: datetime, as_of: datetime | None = None
    ) -> list[Hit]:
        return self.recalled(namespace, query, k=k, now=now, as_of=as_of).hits

    def recalled(
        self,
        namespace: str,
        query: str,
        *,
        k: int,
        now: datetime,
        as_of: datetime | None = None,
        docs: Sequence[tuple[str, str]] = (),
    ) -> Recalled:
        """The hits, with what the read said of the namespace: its view (watermark), the
        memories waiting for vectors, and the documents ``docs`` asked to read beside."""
        at = as_of or now
        known = self._views.get(namespace)
        read, vector = self._read(namespace, query, k, known, docs)
        view = self._views[namespace] = read.view
        c = Candidates(namespace)
        c.mark = view.mark
        c.query_vector = vector / (np.linalg.norm(vector) or 1.0)
        c.judged_until = judged_until(view.runs)
        self._candidates(c, read, max(self.s.candidates, 3 * k))
        out = Recalled(view=view, pending=read.pending, docs=read.docs)
        if not c.keys:
            return out
        if self.s.question_parts and (things := two_things(query)):
            spoke = () if self.s.speakers_in_query_vector else view.speakers
            vectors = [self._embed_query(vector_text(t, spoke)) for t in things]
            self.currency.vectors_for(c, "episode", c.ids("episode"))  # the ranked ones' too
            fusion.parts(c, vectors, self.s.question_parts)
        fusion.quoted(c, query, self.s.phrase_words)
        base = fusion.base(c, self.s, query, meaning=not lexical(self.embedder))
        score = self._context(c, base)
        score = fusion.actor_bonus(c, score, c.named(), self.s.channel_weights)
        meant = speakers_meant(query, {normalize_name(n) for n in view.speakers})
        score = fusion.person_bonus(c, score, meant, self.s.channel_weights)
        score = fusion.session_lift(c, score, self.s.channel_weights)
        untimed = score
        score = fusion.time_lift(
            c, score, query, at, self.s.channel_weights, self.s.time_least_days, self.s.time_told
        )
        score = fusion.when_lift(c, score, query, self.s.channel_weights)
        score = fusion.amount_lift(c, score, query, self.s.channel_weights)
        score = fusion.where_lift(c, score, query, self.s.channel_weights)
        names = {n.lower() for s in view.speakers for n in (s, *s.split())}
        score = fusion.names_lift(c, score, query, names, self.s.channel_weights)
        score = fusion.thin_cut(c, score, self.s.channel_weights)
        score = fusion.asks_cut(c, score, query, names, self.s.channel_weights)
        # a state asked about (an attribute with one value at a time: "where did I live in
        # March?"); an event ("which ramen place did I try three weeks ago?") is found by the
        # time lift alone: the one nearest then, not the last one before it
        judged = self.s.judge_then and self.s.currency and asked_attributes(query)
        back = looked_back(query, at, self.s.time_least_days) if judged else None
        then = back.centre if back else None
        if then and not any(e.occurred_at <= then for e in c.episodes.values()):
            then = back = None  # before all it holds ("the 2016 election"): no as-of reading
        verdicts = self.currency.judge(c, query, then or at, score, k)
        if then:
            verdicts.seen_from(then)
        # about a past time, the statements grouped are chosen by their relevance and by
        # what is asked ("2025" in "in May 2025" is no number asked for): when each was said
        # orders its group (as of then), the time lift does not choose them
        grouped_by = {key: untimed.get(key, v) for key, v in score.items()} if then else score
        asked = query.replace(back.said, " ") if back else query
        verdicts.newest = self.currency.newest_groups(
            c, asked, grouped_by, verdicts.episode_answers, then
        )
        discount_lent(c, score, verdicts)
        out.hits = rank(c, score, at, verdicts, k, self.s)
        if self.s.freeze_gc:
            _settle()
        return out

    def _read(
        self,
        namespace: str,
        query: str,
        k: int,
        known: NamespaceView | None,
        docs: Sequence[tuple[str, str]],
    ) -> tuple[RecallRead, np.ndarray]:
        """One read of the candidates. The query's vector leaves out the namespace's speakers
        (as every episode's leaves out its speaker); the speakers known from the last recall
        are used, and the read is made again only if a new one is named in the query."""
        spoke = known.speakers if known else frozenset()
        text = vector_text(query, () if self.s.speakers_in_query_vector else spoke)
        vector = self._embed_query(text)
        asked = self._ask(namespace, query, k, vector, known, docs)
        read = self.store.recall_read(asked)
        if not self.s.speakers_in_query_vector and read.view.speakers != spoke:
            again = vector_text(query, read.view.speakers)
            if again != text:
                vector = self._embed_query(again)
                read = self.store.recall_read(replace(asked, vector=vector, known=read.view))
        return read, vector

    def _ask(
        self,
        namespace: str,
        query: str,
        k: int,
        vector: np.ndarray,
        known: NamespaceView | None,
        docs: Sequence[tuple[str, str]],
    ) -> RecallQuery:
        asked = asked_attributes(query) if self.s.currency else set()
        return RecallQuery(
            namespace=namespace,
            vector=vector,
            n=max(self.s.candidates, 3 * k),
            terms=keyword_terms(query),
            names=name_candidates(query),
            windows=phrase_windows(query, self.s.phrase_words),
            chunks=self.s.chunks,
            statement_terms=sorted({w for a in asked for w in STATEMENT_WORDS.get(a, ())}),
            statements_n=self.s.currency_statements,
            graph_share=self.s.graph_max_entity_share,
            known=known,
            docs=docs,
            runs_kind=RUN,
            pending_kind=PENDING,
        )

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
    def _candidates(self, c: Candidates, read: RecallRead, n: int) -> None:
        """The channels in the order they were always added (ties keep it), then the records
        and the exact cosine of every candidate the dense channel did not rank."""
        c.vectors.update(read.vectors)
        for kind in KINDS:
            c.add_channel("dense", kind, [(i, steady(v)) for i, v in read.dense[kind]])
            c.add_channel("keyword", kind, self._telling(c, kind, read.keyword[kind], read.view))
        c.query_entities = read.entities
        self._graph(c, read, n)
        c.quoting = [rid for rid, _ in read.quoting]
        for rid in c.quoting:
            c.keys.setdefault(("episode", rid), None)
        c.statements = read.statements
        ranked = set(c.signal["dense"])  # the read brought the vectors of all the others
        c.asked_vectors |= {("episode", i) for i in read.episodes} - ranked
        c.asked_vectors |= {("fact", i) for i in read.facts} - ranked
        for i, e in read.episodes.items():  # the candidates' records; the others wait apart
            (c.episodes if ("episode", i) in c.keys else c.spare)[i] = e
        c.facts.update({i: f for i, f in read.facts.items() if ("fact", i) in c.keys})
        for kind in KINDS:
            cosines(c, kind, [i for i in c.ids(kind) if (kind, i) not in c.signal["dense"]])

    def _telling(
        self,
        c: Candidates,
        kind: Literal["episode", "fact"],
        found: list[tuple[str, float]],
        view: NamespaceView,
    ) -> list[tuple[str, float]]:
        """Keyword matches without those that tell nothing apart. bm25 gives a word found in
        at least half of the records no idf (FTS5 floors it at 1e-6), so a record that
        matched only such words scores about 1e-6; when those are most of the namespace's
        records they are no evidence, and as the channel's best they would each get its
        full weight (a new vault of one speaker's turns: "what sports does Maya do?"
        matched every turn on "Maya": decision 0010). A few such matches among many
        records (one of two, or stats shared with other namespaces) stay."""
        weak = sum(1 for _, score in found if score <= NO_EVIDENCE)
        total = max(view.episodes if kind == "episode" else view.facts, 1)
        if weak == 0 or 2 * weak <= total:
            return found
        return [(rid, score) for rid, score in found if score > NO_EVIDENCE]

    def _graph(self, c: Candidates, read: RecallRead, n: int) -> None:
        """Episodes and facts tied to the entities the query names; rare entities weigh more,
        and entities in a large share of all episodes (a chat's speakers) seed nothing."""
        total = max(read.view.episodes, 1)
        chosen = informative(c.query_entities, self.s.graph_max_entity_share, total)
        if not chosen:
            return
        idf = {e.id: math.log(1.0 + total / max(e.mention_count, 1)) for e in chosen}
        names = {e.id: e.name for e in chosen}
        episode_score: dict[str, float] = defaultdict(float)
        for episode_id, entity_id in read.mentioning:
            episode_score[episode_id] += idf[entity_id]
            c.entities[("episode", episode_id)].append(names[entity_id])
        ranked = sorted(episode_score.items(), key=lambda kv: -kv[1])[:n]
        c.add_channel("graph", "episode", ranked)
        fact_score = {}
        for fact in read.facts_about:
            fact_score[fact.id] = (
                idf.get(fact.subject_id, 0.0) + idf.get(fact.object_id or "", 0.0)
            ) * fact.confidence
            c.entities[("fact", fact.id)] = [fact.subject, fact.object]
        ranked = sorted(fact_score.items(), key=lambda kv: -kv[1])[:n]
        c.add_channel("graph", "fact", ranked)

    # -- fusion ---------------------------------------------------------------------------
    def _context(self, c: Candidates, base: dict[Key, float]) -> dict[Key, float]:
        """Each turn also takes a share of its best neighbour's base score; neighbours of the
        strongest episodes join the candidates (an answer often sits one turn after the
        question that names the topic)."""
        weight = self.s.channel_weights.get("context", 0.0)
        if self.s.context_window <= 0 or weight <= 0:
            return dict(base)
        strongest = c.by_score(base, "episode")
        anchors = [c.episodes[i] for _, i in strongest[: self.s.context_anchors] if i in c.episodes]
        near = self.store.neighbours_read(c.ns, anchors, self.s.context_window, list(c.episodes))
        around = near.around
        fresh = [i for ids in around.values() for i in ids if i not in c.episodes]
        if fresh:
            c.vectors.update(near.vectors)
            c.asked_vectors.update(("episode", i) for i in near.episodes)
            c.episodes.update({i: near.episodes[i] for i in fresh if i in near.episodes})
            cosines(c, "episode", fresh)
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


@dataclass
class Recalled:
    """One recall: its hits, the namespace as the read found it, the memories still waiting
    for vectors, and the documents asked to be read beside."""

    view: NamespaceView
    pending: int = 0
    docs: list[Doc] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
