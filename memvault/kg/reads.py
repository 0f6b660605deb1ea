"""What recall asks the store for, as values: a few composed reads instead of a call per
lookup (issue 29, "recall reads once").

A recall needs, in order: the candidates of its query (every channel's top k, the query's
entities and what they touch, the records and vectors of all of them, and the namespace's
own state: watermark, speakers, sizes, pending vectors, the last dream that judged); the
session neighbours of its strongest turns; what the leading candidates name and the facts
about it; and the episodes a currency verdict leads to. Each is one call of the port
(:class:`memvault.kg.roles.SearchStore`), whatever the adapter does inside it: the embedded
store answers each from one read snapshot of its file; a graph server's adapter composes the
lookups below, one query each, inside the same call. The functions here are that composition,
written once for every adapter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from memvault.embed.steady import Ranked, nearest_steady
from memvault.kg.model import Entity, Episode, Fact, Mention, chunk_episode
from memvault.kg.values import Doc, FactQuery

if TYPE_CHECKING:
    from memvault.kg.store import Store


@dataclass(frozen=True)
class NamespaceView:
    """What a namespace is as a whole, as of its watermark ``mark``: recall keeps it and the
    store reads it again only when the watermark moved."""

    mark: int = 0
    speakers: frozenset[str] = frozenset()  # everyone who spoke (deleted turns included)
    episodes: int = 0
    facts: int = 0
    runs: tuple[Doc, ...] = ()  # the applied dream runs, newest first (who judged what)


@dataclass(frozen=True)
class RecallQuery:
    """The candidates of one query. ``known``: the view recall holds (read again when the
    namespace's watermark is no longer its mark). ``docs``: documents to read beside (kind,
    id). ``runs_kind``: the kind of the dream's run documents, listed (applied ones, newest
    ``runs_limit``) when the view is read again."""

    namespace: str
    vector: np.ndarray
    n: int
    terms: Sequence[str]
    names: Sequence[str]
    windows: Sequence[str] = ()
    chunks: bool = False
    statement_terms: Sequence[str] = ()
    statements_n: int = 0
    graph_share: float = 1.0
    known: NamespaceView | None = None
    docs: Sequence[tuple[str, str]] = ()
    runs_kind: str | None = None
    runs_limit: int = 1_000
    pending_kind: str | None = None


@dataclass
class RecallRead:
    view: NamespaceView
    # episode (a long one as near as its nearest chunk) / fact
    dense: dict[str, Ranked] = field(default_factory=dict)
    keyword: dict[str, Ranked] = field(default_factory=dict)  # episode / fact
    quoting: Ranked = field(default_factory=list)
    statements: list[str] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)  # the query's names, found
    mentioning: list[tuple[str, str]] = field(default_factory=list)  # (episode, entity)
    facts_about: list[Fact] = field(default_factory=list)
    episodes: dict[str, Episode] = field(default_factory=dict)
    facts: dict[str, Fact] = field(default_factory=dict)
    # (kind, id): of the records the dense search did not rank (their cosine is computed)
    vectors: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    docs: list[Doc] = field(default_factory=list)
    pending: int = 0


@dataclass
class Loaded:
    """Episodes (and the vectors of them and of facts) one later read brought."""

    episodes: dict[str, Episode] = field(default_factory=dict)
    vectors: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    around: dict[str, list[str]] = field(default_factory=dict)  # neighbours: anchor → ids
    # episodes that the loaded ones say replaced them (one link on), kept apart: the caller
    # decides which of them it wants
    replacers: dict[str, Episode] = field(default_factory=dict)
    # episodes the keyword searches for the words of a frame found (``episodes_read``)
    framed: dict[str, Episode] = field(default_factory=dict)


@dataclass
class NamedRead:
    mentions: list[Mention] = field(default_factory=list)
    speakers: list[Entity] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    named: list[Entity] = field(default_factory=list)  # the entities the mentions are of


def informative(entities: Sequence[Entity], share: float, episodes: int) -> list[Entity]:
    """The query's entities that tell episodes apart: not in a large share of all of them
    (a chat's speakers seed nothing)."""
    total = max(episodes, 1)
    return [e for e in entities if e.mention_count <= share * total]


def _vectors(
    store: Store, ns: str, kind: str, ids: Sequence[str]
) -> dict[tuple[str, str], np.ndarray]:
    if not ids:
        return {}
    found = store.get_vectors(ns, kind, list(ids))  # type: ignore[arg-type]
    return {(kind, i): v for i, v in found.items()}


def view_of(store: Store, q: RecallQuery, mark: int) -> NamespaceView:
    """The namespace's view as of ``mark``, from what ``q.known`` held and what changed."""
    known = q.known or NamespaceView()
    if known.mark == mark and q.known is not None:
        return known
    _, new = store.speakers_since(q.namespace, known.mark)
    counts = store.counts(q.namespace)
    runs: tuple[Doc, ...] = ()
    if q.runs_kind:
        found = store.list_docs(q.namespace, q.runs_kind, status="applied", limit=q.runs_limit)
        runs = tuple(found)
    return NamespaceView(
        mark=mark,
        speakers=known.speakers | new,
        episodes=counts["episodes"],
        facts=counts["facts"],
        runs=runs,
    )


def recall_read(store: Store, q: RecallQuery) -> RecallRead:
    """The candidates of ``q``, composed of the port's lookups (see the module's doc)."""
    ns = q.namespace
    out = RecallRead(view=view_of(store, q, store.watermark(ns)))
    for kind in ("episode", "fact"):
        out.dense[kind] = nearest_steady(_nearest(store, ns, kind, q), q.n)
        out.keyword[kind] = store.keyword_topk(ns, kind, q.terms, q.n)
    out.entities = store.find_entities(ns, q.names) if q.names else []
    seeds = [e.id for e in informative(out.entities, q.graph_share, out.view.episodes)]
    if seeds:
        out.mentioning = store.episodes_mentioning(ns, seeds, limit=q.n * len(seeds))
        out.facts_about = store.facts_about(ns, seeds)
    if q.windows:
        out.quoting = store.keyword_topk(ns, "episode", q.windows, q.n)
    if q.statement_terms and q.statements_n:
        found = store.keyword_topk(ns, "episode", q.statement_terms, q.statements_n)
        out.statements = [i for i, _ in found]
    episode_ids = dict.fromkeys(
        [i for i, _ in out.dense["episode"]]
        + [i for i, _ in out.keyword["episode"]]
        + [e for e, _ in out.mentioning]
        + [i for i, _ in out.quoting]
        + out.statements
    )
    fact_ids = dict.fromkeys(
        [i for i, _ in out.dense["fact"]]
        + [i for i, _ in out.keyword["fact"]]
        + [f.id for f in out.facts_about]
    )
    out.episodes = {e.id: e for e in store.get_episodes(ns, list(episode_ids))}
    out.facts = {f.id: f for f in store.get_facts(ns, list(fact_ids))}
    out.facts.update({f.id: f for f in out.facts_about if f.id not in out.facts})
    ranked = {i for i, _ in out.dense["episode"]}
    ranked_facts = {i for i, _ in out.dense["fact"]}
    out.vectors = _vectors(store, ns, "episode", [i for i in out.episodes if i not in ranked])
    out.vectors |= _vectors(store, ns, "fact", [i for i in out.facts if i not in ranked_facts])
    for kind, ids in _by_kind(q.docs).items():
        out.docs += store.get_docs(ns, kind, ids)
    if q.pending_kind:
        out.pending = store.count_docs(ns, q.pending_kind)
    return out


def _nearest(store: Store, ns: str, kind: str, q: RecallQuery) -> Callable[[int], Ranked]:
    """The ``k`` nearest of ``kind`` to the query, a long episode as near as its nearest part."""

    def fetch(k: int) -> Ranked:
        found = store.vector_topk(ns, kind, q.vector, k)  # type: ignore[arg-type]
        if kind == "episode" and q.chunks:
            return with_chunks(found, store.vector_topk(ns, "chunk", q.vector, k), k)
        return found

    return fetch


def with_chunks(nearest: Ranked, chunks: Ranked, n: int) -> Ranked:
    """A long episode is as near as its nearest part: the chunks' vectors (what the
    embedder would not read of a long text, memvault.kg.model.Episode.chunk_texts) lend
    their episode their cosine when it is higher than its own."""
    if not chunks:
        return nearest
    best = dict(nearest)
    for rid, score in chunks:
        episode = chunk_episode(rid)
        if score > best.get(episode, -2.0):
            best[episode] = score
    return sorted(best.items(), key=lambda kv: -kv[1])[:n]


def _by_kind(docs: Sequence[tuple[str, str]]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for kind, i in docs:
        grouped.setdefault(kind, []).append(i)
    return grouped


def neighbours_read(
    store: Store, ns: str, anchors: Sequence[Episode], window: int, known: Sequence[str]
) -> Loaded:
    """The turns within ``window`` of each anchor in its session, with the records and
    vectors of those not in ``known``."""
    around = store.session_neighbours(ns, anchors, window)
    have = set(known)
    fresh = list(dict.fromkeys(i for ids in around.values() for i in ids if i not in have))
    episodes = {e.id: e for e in store.get_episodes(ns, fresh)} if fresh else {}
    return Loaded(episodes=episodes, vectors=_vectors(store, ns, "episode", fresh), around=around)


def named_read(
    store: Store,
    ns: str,
    episode_ids: Sequence[str],
    speakers: Sequence[str],
    subjects: Sequence[str],
    max_facts: int,
) -> NamedRead:
    """What the episodes name (their mentions), the entities of their speakers, and the
    facts about all of it and about ``subjects``."""
    out = NamedRead()
    out.mentions = store.mentions_of(ns, list(episode_ids)) if episode_ids else []
    out.speakers = store.find_entities(ns, list(speakers)) if speakers else []
    mentioned = sorted({m.entity_id for m in out.mentions})
    out.named = store.get_entities(ns, mentioned) if mentioned else []
    about = set(subjects) | set(mentioned) | {e.id for e in out.speakers}
    out.facts = store.list_facts(ns, FactQuery(subject_ids=sorted(about), limit=max_facts))
    return out


FRAMED_K = 20  # keyword matches read per frame: the same words said for other values


def episodes_read(
    store: Store,
    ns: str,
    ids: Sequence[str],
    follow: Sequence[str],
    vectors_of: Sequence[tuple[str, str]],
    frames: Sequence[Sequence[str]] = (),
    framed: Callable[[Episode], bool] | None = None,
) -> Loaded:
    """Episodes ``ids`` and those ``follow`` names; the episodes that any of the loaded
    ``ids`` say replaced them (one link on), in ``replacers``; of the best ``FRAMED_K``
    keyword matches of each of ``frames`` (the words of a statement around its names: another
    value said in the same words) those ``framed`` keeps, in ``framed``; the vectors of all
    of them and of the records ``vectors_of`` (kind, id)."""
    wanted = list(dict.fromkeys([*ids, *follow]))
    out = Loaded(episodes={e.id: e for e in store.get_episodes(ns, wanted)} if wanted else {})
    new = {r.episode_id for i in ids if (e := out.episodes.get(i)) for r in e.replaced_by}
    new -= set(out.episodes)
    if new:
        out.replacers = {e.id: e for e in store.get_episodes(ns, sorted(new))}
    found = {i for terms in frames for i, _ in store.keyword_topk(ns, "episode", terms, FRAMED_K)}
    found -= {*out.episodes, *out.replacers}
    if found:
        matched = store.get_episodes(ns, sorted(found))
        out.framed = {e.id: e for e in matched if framed is None or framed(e)}
    episodes = dict.fromkeys([*out.episodes, *out.replacers, *out.framed])
    episodes.update(dict.fromkeys(i for kind, i in vectors_of if kind == "episode"))
    facts = [i for kind, i in vectors_of if kind == "fact"]
    out.vectors = _vectors(store, ns, "episode", list(episodes)) | _vectors(
        store, ns, "fact", facts
    )
    return out
