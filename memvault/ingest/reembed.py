"""Recompute a namespace's vectors with the configured embedder: after the text vectors are
computed from changed (docs/decisions/0009: an episode's vector no longer includes its
speaker's name, nor a fact's its subject's), or after switching to another embedder of the
same dimension.

Vectors are derived data: nothing a user wrote changes, and running it again gives the same
vectors, so there is no undo; the dry run (the default) says what would be recomputed. Runs
in batches, each committed on its own: an interrupted run leaves every vector usable (old or
new) and a second run finishes it. An embedder of another dimension is refused before
anything is written (export, then import into a vault configured with it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from memvault.embed import Embedder
from memvault.errors import InvalidInputError
from memvault.kg.model import Entity, Episode, Fact, VectorKind, chunk_id
from memvault.kg.store import Batch, Store, VectorRecord
from memvault.language.text import CHUNK_CHARS

BATCH = 256


@dataclass
class ReembedReport:
    namespace: str
    embedder: str
    applied: bool
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def _texts(store: Store, namespace: str, size: int) -> list[tuple[VectorKind, str, str]]:
    out: list[tuple[VectorKind, str, str]] = []
    for r in store.iter_records(namespace):
        if isinstance(r, Episode):
            out.append(("episode", r.id, r.vector_text()))
            out += [("chunk", chunk_id(r.id, n), t) for n, t in enumerate(r.chunk_texts(size), 1)]
        elif isinstance(r, Fact):
            out.append(("fact", r.id, r.vector_text()))
        elif isinstance(r, Entity):
            out.append(("entity", r.id, r.name))
    return out


def reembed(
    store: Store,
    embedder: Embedder,
    namespace: str,
    *,
    apply: bool,
    on_progress: Callable[[int, int], None] | None = None,
    chunk_chars: int = CHUNK_CHARS,
) -> ReembedReport:
    report = ReembedReport(namespace=namespace, embedder=embedder.name, applied=apply)
    if not apply:  # the store counts without reading a record
        counts = store.counts(namespace)
        every = {"episode": "episodes", "fact": "facts_all", "entity": "entities"}
        report.counts = {kind: counts[key] for kind, key in every.items() if counts.get(key)}
        return report
    texts = _texts(store, namespace, chunk_chars)
    for kind, _, _ in texts:
        report.counts[kind] = report.counts.get(kind, 0) + 1
    if not texts:
        return report
    kind, rid, _ = texts[0]
    stored = store.get_vectors(namespace, kind, [rid]).get(rid)
    if stored is not None and len(stored) != embedder.dim:
        raise InvalidInputError(
            f"the stored vectors have {len(stored)} dimensions and {embedder.name} gives "
            f"{embedder.dim}",
            field="embedder",
            hint="export the namespace, then import it into a vault configured with the new "
            "embedder",
        )
    started = time.perf_counter()
    for start in range(0, len(texts), BATCH):
        part = texts[start : start + BATCH]
        matrix = embedder.embed([t for _, _, t in part])
        store.apply(
            Batch(
                namespace=namespace,
                vectors=[VectorRecord(k, i, matrix[n]) for n, (k, i, _) in enumerate(part)],
            )
        )
        if on_progress:
            on_progress(start + len(part), len(texts))
    store.prepare_search(namespace)
    report.seconds = round(time.perf_counter() - started, 2)
    return report
