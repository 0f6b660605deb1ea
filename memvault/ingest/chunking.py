"""What a record's meaning vectors are computed from, for every path that embeds (a write,
catch-up, reembed, a dump loaded), so the same record and embedder give the same vectors
everywhere: an episode's text, a fact's statement, an entity's name, and the chunk vectors of
long episodes: the windows of each text past what the embedder's one vector reads of it
(``Episode.chunk_texts``), one vector each, under the ids ``chunk_id(episode, n)``."""

from __future__ import annotations

from collections.abc import Sequence

from memvault.embed import Embedder
from memvault.embed.port import reach
from memvault.kg.model import Entity, Episode, Fact, VectorKind, chunk_id
from memvault.kg.store import VectorRecord


def chunks_of(
    embedder: Embedder, episodes: Sequence[Episode], size: int
) -> list[tuple[str, str, str]]:
    """(episode id, chunk id, text) of each long episode's windows, in order. What the
    embedder reads is asked only of texts longer than a window; an embedder that does not
    say is assumed to read one window (``size`` characters). A text within one window has
    none (whatever the embedder reads of it: asking every short turn would tokenise it twice)."""
    if size <= 0:
        return []
    long = [e for e in episodes if len(" ".join(e.vector_text().split())) > size]
    # asked of the text as it is embedded (an embedder may keep its tokens for that call),
    # counted as ``chunk_texts`` counts: whitespace runs as one space
    texts = [e.vector_text() for e in long]
    found = reach(embedder, texts)
    read: Sequence[int | None] = (
        [len(" ".join(t[:r].split())) for t, r in zip(texts, found, strict=True)]
        if found is not None
        else [None] * len(long)
    )
    return [
        (e.id, chunk_id(e.id, n), t)
        for e, r in zip(long, read, strict=True)
        for n, t in enumerate(e.chunk_texts(size, r), 1)
    ]


def vector_texts(
    embedder: Embedder, records: Sequence[Episode | Fact | Entity], size: int
) -> list[tuple[VectorKind, str, str]]:
    """(kind, id, text) of each vector the records have: an episode's text and its chunks,
    a fact's statement, an entity's name."""
    out: list[tuple[VectorKind, str, str]] = []
    for r in records:
        if isinstance(r, Episode):
            out.append(("episode", r.id, r.vector_text()))
        elif isinstance(r, Fact):
            out.append(("fact", r.id, r.vector_text()))
        else:
            out.append(("entity", r.id, r.name))
    episodes = [r for r in records if isinstance(r, Episode)]
    return out + [("chunk", i, t) for _, i, t in chunks_of(embedder, episodes, size)]


def vectors_of(
    embedder: Embedder, records: Sequence[Episode | Fact | Entity], size: int
) -> list[VectorRecord]:
    """The records' vectors (``vector_texts``), in one embedder call: it batches by length."""
    texts = vector_texts(embedder, records, size)
    if not texts:
        return []
    matrix = embedder.embed([t for _, _, t in texts])
    return [VectorRecord(kind, i, matrix[n]) for n, (kind, i, _) in enumerate(texts)]
