"""Recompute a namespace's vectors with the configured embedder: after the text vectors are
computed from changed (docs/decisions/0009: an episode's vector no longer includes its
speaker's name, nor a fact's its subject's), or after switching to another embedder of the
same dimension.

Vectors are derived data: nothing a user wrote changes, and running it again gives the same
vectors, so there is no undo; the dry run (the default) says what would be recomputed.

Resumable exactly: an applied run first marks every record it will recompute (one
``reembed_pending`` document each, naming the embedder), then recomputes them in batches,
each committed together with the removal of its marks. An interrupted run leaves every
vector usable (old or new) and its marks behind; the next run with the same embedder
recomputes only what is still marked (``resumed`` in the report), never a vector twice. A
run with another embedder starts over. An embedder of another dimension is refused before
anything is written (export, then import into a vault configured with it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from memvault.embed import Embedder
from memvault.errors import InvalidInputError
from memvault.ingest.chunking import vector_texts
from memvault.kg.model import Entity, Episode, Fact, VectorKind, chunk_episode, chunk_id
from memvault.kg.store import Batch, Doc, Store, VectorRecord
from memvault.language.text import CHUNK_CHARS, MAX_CHUNKS

BATCH = 256
PENDING = "reembed_pending"  # one per record still to recompute: "<kind>:<id>"
MARKS_PER_BATCH = 5_000
_KIND: dict[type, VectorKind] = {Episode: "episode", Fact: "fact", Entity: "entity"}


@dataclass
class ReembedReport:
    namespace: str
    embedder: str
    applied: bool
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    resumed: int = 0  # records left marked by an interrupted run, recomputed now


def _outlived(
    store: Store, namespace: str, episodes: list[Episode], vectors: list[VectorRecord]
) -> list[VectorRecord]:
    """Chunk vectors an episode had past its windows now (cut at another size, or for an
    embedder that read less): each takes a copy of the episode's last new vector, so no
    vector of the old model stays beside the new ones, and the episode is as near as before
    its nearest window. (The store deletes vectors only with their record.)"""
    last: dict[str, VectorRecord] = {}
    for v in vectors:
        if v.kind in ("episode", "chunk"):
            last[chunk_episode(v.id) if v.kind == "chunk" else v.id] = v
    written = {v.id for v in vectors if v.kind == "chunk"}
    asked = [
        chunk_id(e.id, n)
        for e in episodes
        for n in range(1, MAX_CHUNKS + 1)
        if chunk_id(e.id, n) not in written
    ]
    found = store.get_vectors(namespace, "chunk", asked) if asked else {}
    return [VectorRecord("chunk", i, last[chunk_episode(i)].vector) for i in found]


def _mark(store: Store, namespace: str, embedder: str) -> int:
    """One mark per record to recompute, unless an interrupted run of the same embedder
    left some (returns how many it left: those are what is still to do)."""
    left = store.list_docs(namespace, PENDING, limit=1)
    if left and left[0].body.get("embedder") == embedder:
        return store.count_docs(namespace, PENDING)
    if left:  # another embedder's unfinished run: start over
        ids = [d.id for d in store.list_docs(namespace, PENDING, limit=10_000_000)]
        store.apply(Batch(namespace=namespace, drop_docs=[(PENDING, i) for i in ids], quiet=True))
    marks: list[Doc] = []
    for r in store.iter_records(namespace):
        if isinstance(r, Episode | Fact | Entity):
            kind = _KIND[type(r)]
            marks.append(Doc(PENDING, f"{kind}:{r.id}", {"embedder": embedder}))
        if len(marks) >= MARKS_PER_BATCH:
            store.apply(Batch(namespace=namespace, docs=marks, quiet=True))
            marks = []
    if marks:
        store.apply(Batch(namespace=namespace, docs=marks, quiet=True))
    return 0


def _records(store: Store, namespace: str, ids: list[str]) -> list[Episode | Fact | Entity]:
    by_kind: dict[str, list[str]] = {}
    for mark in ids:
        kind, _, rid = mark.partition(":")
        by_kind.setdefault(kind, []).append(rid)
    out: list[Episode | Fact | Entity] = []
    out += store.get_episodes(namespace, by_kind.get("episode", []))
    out += store.get_facts(namespace, by_kind.get("fact", []))
    out += store.get_entities(namespace, by_kind.get("entity", []))
    return out


def reembed(
    store: Store,
    embedder: Embedder,
    namespace: str,
    *,
    apply: bool,
    on_progress: Callable[[int, int], None] | None = None,
    chunk_chars: int = CHUNK_CHARS,
    batch: int = BATCH,
) -> ReembedReport:
    report = ReembedReport(namespace=namespace, embedder=embedder.name, applied=apply)
    if not apply:  # the store counts without reading a record
        counts = store.counts(namespace)
        every = {"episode": "episodes", "fact": "facts_all", "entity": "entities"}
        report.counts = {kind: counts[key] for kind, key in every.items() if counts.get(key)}
        left = store.list_docs(namespace, PENDING, limit=1)
        if left and left[0].body.get("embedder") == embedder.name:
            report.resumed = store.count_docs(namespace, PENDING)
        return report
    _check_dimension(store, embedder, namespace)
    started = time.perf_counter()
    report.resumed = _mark(store, namespace, embedder.name)
    total, done = store.count_docs(namespace, PENDING), 0
    while marks := store.list_docs(namespace, PENDING, limit=batch):
        ids = [d.id for d in marks]
        records = _records(store, namespace, ids)
        texts = vector_texts(embedder, records, chunk_chars)
        matrix = embedder.embed([t for _, _, t in texts]) if texts else np.empty((0, 0))
        vectors = [VectorRecord(k, i, row) for (k, i, _), row in zip(texts, matrix, strict=True)]
        episodes = [r for r in records if isinstance(r, Episode)]
        vectors += _outlived(store, namespace, episodes, vectors)
        store.apply(
            Batch(namespace=namespace, vectors=vectors, drop_docs=[(PENDING, i) for i in ids])
        )
        for kind, _, _ in texts:
            report.counts[kind] = report.counts.get(kind, 0) + 1
        done += len(ids)
        if on_progress:
            on_progress(min(done, total), max(total, done))
    store.prepare_search(namespace)
    report.seconds = round(time.perf_counter() - started, 2)
    return report


def _check_dimension(store: Store, embedder: Embedder, namespace: str) -> None:
    """Refuse an embedder of another dimension before anything is written: the first stored
    vector says the namespace's."""
    for r in store.iter_records(namespace):
        if not isinstance(r, Episode | Fact | Entity):
            continue
        stored = store.get_vectors(namespace, _KIND[type(r)], [r.id]).get(r.id)
        if stored is None:
            continue
        if len(stored) != embedder.dim:
            raise InvalidInputError(
                f"the stored vectors have {len(stored)} dimensions and {embedder.name} gives "
                f"{embedder.dim}",
                field="embedder",
                hint="export the namespace, then import it into a vault configured with the "
                "new embedder",
            )
        return
