"""The real embedder: all-MiniLM-L6-v2 from the installed package, offline, on CPU.

These run in CI (the test command installs the ``ml`` extra); they are marked so a quick
local loop can deselect them with ``-m "not model"``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memvault import FixedClock, MemVault
from memvault.embed.sentence import SentenceTransformerEmbedder
from tests.conftest import T0

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder()


def test_loads_offline_and_embeds_normalised_batches(
    minilm: SentenceTransformerEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    texts = [f"memory number {i}" for i in range(150)]  # more than one batch
    matrix = minilm.embed(texts)
    assert matrix.shape == (150, 384) and matrix.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-4)
    np.testing.assert_allclose(minilm.embed(texts[:3]), matrix[:3], atol=1e-5)
    assert minilm.embed([]).shape == (0, 384)


def test_meaning_beats_shared_words(minilm: SentenceTransformerEmbedder) -> None:
    q, near, far = minilm.embed(
        ["my dog needs a walk", "the puppy wants to go outside", "a walk-in closet for my shoes"]
    )
    assert float(q @ near) > float(q @ far)


def test_recall_finds_a_paraphrase_with_no_shared_words(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    with MemVault.open(tmp_path / "v.db", embedder=minilm, clock=FixedClock(T0)) as vault:
        vault.write_many(
            [
                {"content": "Adopted a beagle puppy from the shelter last weekend."},
                {"content": "The quarterly tax filing is due at the end of April."},
                {"content": "Our team switched the build system to Bazel."},
            ]
        )
        hits = vault.recall("What pet do I have?")
        assert "beagle" in hits[0].text
        assert hits[0].explanation.signals["dense"] > 0
