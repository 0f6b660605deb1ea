"""Long turns are read to the end: a passage placed after the 3,000th character of a turn is
found by meaning (its chunk's vector lends the turn its cosine), the chunks go when the
memory is forgotten, and a short turn has none."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from memvault import FixedClock, MemVault
from memvault.embed import Embedder
from memvault.embed.onnx import OnnxEmbedder
from memvault.embed.sentence import SentenceTransformerEmbedder
from memvault.ingest.chunking import chunks_of, vectors_of
from memvault.kg.model import chunk_id

NOW = datetime(2026, 2, 1, tzinfo=UTC)
PADDING = (
    "We went through the quarterly planning document line by line, checking owners, dates "
    "and the open questions for the infrastructure budget. "
) * 25  # ~3,500 characters about something else
PASSAGE = (
    "My grandmother kept a lighthouse on a tiny island off the coast of Galicia. "
    "As a child I spent every summer there, climbing the spiral stairs to polish the great "
    "lamp. The keeper's cottage still smells of salt, rope and old nautical charts."
)
QUESTION = "Which building by the sea did her family look after?"  # no word of the passage


def test_a_passage_after_the_3000th_character_is_found_by_meaning(tmp_path: Path) -> None:
    text = f"{PADDING}{PASSAGE} Anyway, back to the budget review."
    assert text.index(PASSAGE) > 3000
    with MemVault.open(tmp_path / "v.db", clock=FixedClock(NOW)) as vault:
        long_id = vault.write(text, speaker="Ana").id
        short_id = vault.write("I like tea in the morning.", speaker="Ana").id
        for n in range(6):
            vault.write(f"Budget line {n}: servers and planning for the next quarter.")
        episode = vault.get_episode(long_id)
        parts = [
            t for _, _, t in chunks_of(vault.c.embedder, [episode], vault.settings.chunk_chars)
        ]
        ids = [chunk_id(long_id, n) for n in range(1, len(parts) + 3)]
        assert len(vault.store.get_vectors("default", "chunk", ids)) == len(parts) >= 5
        # the windows begin where the turn's own vector stops reading (256 tokens, about a
        # thousand characters here), not after the first window's worth: fewer of them
        read = vault.c.embedder.reach([" ".join(episode.vector_text().split())])[0]
        assert 900 < read < 2000
        assert len(parts) < len(episode.chunk_texts()) and parts == episode.chunk_texts(read=read)
        assert vault.store.get_vectors("default", "chunk", [chunk_id(short_id, 1)]) == {}

        q = vault.c.embedder.embed([QUESTION])[0]
        own = dict(vault.store.vector_topk("default", "episode", q, 10))[long_id]
        best = max(s for _, s in vault.store.vector_topk("default", "chunk", q, 50))
        assert best > own + 0.15  # the whole turn's vector barely sees the passage
        hits = vault.recall(QUESTION, k=3)
        assert hits[0].id == long_id
        assert abs(hits[0].explanation.signals["dense"] - best) < 1e-5

        vault.forget(long_id)
        assert vault.store.get_vectors("default", "chunk", ids) == {}
        assert vault.store.vector_topk("default", "chunk", q, 50) == []
        assert all(h.id != long_id for h in vault.recall(QUESTION, k=5))


def test_chunks_can_be_turned_off(tmp_path: Path) -> None:
    text = f"{PADDING}{PASSAGE}"
    with MemVault.open(tmp_path / "v.db", clock=FixedClock(NOW), chunk_chars=0) as vault:
        rid = vault.write(text, speaker="Ana").id
        assert vault.store.get_vectors("default", "chunk", [chunk_id(rid, 1)]) == {}
        assert vault.store.get_vectors("default", "episode", [rid])  # the turn's own vector


@pytest.mark.parametrize("runtime", ["onnx", "torch"])
def test_a_long_turn_is_tokenised_once_for_its_windows_and_its_vector(
    tmp_path: Path, runtime: str
) -> None:
    """What a long turn's vector reads and the vector itself come from one tokenisation (the
    embedder keeps the tokens it counted for the embedding that follows): the same windows
    and vectors as asking and embedding apart, whitespace runs, newlines and all."""

    def embedder() -> Embedder:
        if runtime == "onnx":
            return OnnxEmbedder(tmp_path / "models")
        return SentenceTransformerEmbedder(device="cpu")

    text = "  " + PADDING.replace(". ", ".\n\n   ") + PASSAGE + "\n"
    kept, apart = embedder(), embedder()
    with MemVault.open(tmp_path / "v.db", clock=FixedClock(NOW), embedder=kept) as vault:
        episode = vault.get_episode(vault.write(text, speaker="Ana").id)
        size = vault.settings.chunk_chars
    before = kept.texts_tokenized
    vectors = vectors_of(kept, [episode], size)
    parts = [v for v in vectors if v.kind == "chunk"]
    assert kept.texts_tokenized - before == 1 + len(parts)  # the turn once, each window once
    read = apart.reach([" ".join(episode.vector_text().split())])[0]
    windows = episode.chunk_texts(size, read)
    assert len(parts) == len(windows) >= 3
    expected = apart.embed([episode.vector_text(), *windows])
    got = np.stack([v.vector for v in vectors])
    assert np.allclose(got, expected, atol=1e-5)
