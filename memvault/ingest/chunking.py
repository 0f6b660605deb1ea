"""The chunk vectors of long episodes: the windows of each text past what the embedder's one
vector reads of it (``Episode.chunk_texts``), one vector each, under the ids
``chunk_id(episode, n)``. Every path that embeds episodes (a write, catch-up, reembed, a dump
loaded) cuts them here, so the same text and embedder give the same chunks everywhere."""

from __future__ import annotations

from collections.abc import Sequence

from memvault.embed import Embedder
from memvault.embed.port import reach
from memvault.kg.model import Episode, chunk_id


def chunks_of(
    embedder: Embedder, episodes: Sequence[Episode], size: int
) -> list[tuple[str, str, str]]:
    """(episode id, chunk id, text) of each long episode's windows, in order. What the
    embedder reads is asked only of texts longer than a window; an embedder that does not
    say is assumed to read one window (``size`` characters). A text within one window has
    none (whatever the embedder reads of it: asking every short turn would tokenise it twice)."""
    if size <= 0:
        return []
    texts = {e.id: " ".join(e.vector_text().split()) for e in episodes}
    long = [e for e in episodes if len(texts[e.id]) > size]
    found = reach(embedder, [texts[e.id] for e in long])
    read: Sequence[int | None] = found if found is not None else [None] * len(long)
    return [
        (e.id, chunk_id(e.id, n), t)
        for e, r in zip(long, read, strict=True)
        for n, t in enumerate(e.chunk_texts(size, r), 1)
    ]
