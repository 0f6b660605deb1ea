"""The real embedder: all-MiniLM-L6-v2 from the installed package, offline, on CPU.

These run in CI (the test command installs the ``ml`` extra); they are marked so a quick
local loop can deselect them with ``-m "not model"``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from memvault import FixedClock, MemVault
from memvault.embed.onnx import OnnxEmbedder
from memvault.embed.port import Embedder
from memvault.embed.sentence import SentenceTransformerEmbedder
from tests.conftest import T0

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def torch_minilm() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder()


@pytest.fixture(scope="module")
def onnx_minilm(tmp_path_factory: pytest.TempPathFactory) -> OnnxEmbedder:
    return OnnxEmbedder(tmp_path_factory.mktemp("models"))


@pytest.fixture(scope="module")
def int8_minilm(onnx_minilm: OnnxEmbedder) -> OnnxEmbedder:
    return OnnxEmbedder(onnx_minilm.cache_dir, precision="int8")


@pytest.fixture(params=["torch", "onnx", "onnx-int8"])
def minilm(
    request: pytest.FixtureRequest,
    torch_minilm: Embedder,
    onnx_minilm: OnnxEmbedder,
    int8_minilm: OnnxEmbedder,
) -> Embedder:
    return {"torch": torch_minilm, "onnx": onnx_minilm, "onnx-int8": int8_minilm}[request.param]


def test_onnx_vectors_are_the_torch_model_s_vectors(
    torch_minilm: Embedder, onnx_minilm: OnnxEmbedder
) -> None:
    """One model, two runtimes: a vault written with one is read with the other. Mixed
    lengths (one past the 256-token limit) in one call, so length batching and truncation
    are both exercised, and the order of the rows is the order of the texts."""
    texts = [
        "where does Maya live now?",
        "",
        "I moved to Lisbon last week, the flat is near the river and the light is lovely. " * 30,
        "We adopted a beagle.",
        "ok",
    ] + [f"memory number {i} about the garden" for i in range(40)]
    a, b = torch_minilm.embed(texts), onnx_minilm.embed(texts)
    assert a.shape == b.shape == (45, 384)
    assert float(np.min(np.sum(a * b, axis=1))) >= 0.9999
    assert onnx_minilm.name == torch_minilm.name
    files = [f for f in onnx_minilm.cache_dir.glob("*.onnx") if "int8" not in f.name]
    assert len(files) == 1  # exported once; a second embedder reuses it
    again = OnnxEmbedder(onnx_minilm.cache_dir)
    np.testing.assert_allclose(again.embed(texts[:2]), b[:2], atol=1e-6)
    assert [f for f in onnx_minilm.cache_dir.glob("*.onnx") if "int8" not in f.name] == files


def test_worker_threads_sleep_between_runs_unless_asked_to_spin(
    onnx_minilm: OnnxEmbedder,
) -> None:
    """Spinning threads take a busy CPU from the ones with work (bench/embed_contention.py);
    memvault's sessions let them sleep, and the vectors are the same either way."""
    texts = ["where does Maya live now?", "I moved to Lisbon last week."]
    spinning = OnnxEmbedder(onnx_minilm.cache_dir, spin=True)
    np.testing.assert_allclose(spinning.embed(texts), onnx_minilm.embed(texts), atol=1e-6)
    key = "session.intra_op.allow_spinning"
    for embedder, value in ((onnx_minilm, "0"), (spinning, "1")):
        session, _ = embedder._load()
        assert session.get_session_options().get_session_config_entry(key) == value


def test_int8_vectors_are_near_full_precision_s_and_named_apart(
    onnx_minilm: OnnxEmbedder, int8_minilm: OnnxEmbedder
) -> None:
    """The quantised graph is made once from the exported one; its vectors are close to full
    precision's but not the same, so they carry another name (a namespace keeps one)."""
    texts = [
        "where does Maya live now?",
        "I moved to Lisbon last week, the flat is near the river and the light is lovely. " * 30,
        "We adopted a beagle.",
        "",
    ] + [f"memory number {i} about the garden" for i in range(20)]
    a, b = onnx_minilm.embed(texts), int8_minilm.embed(texts)
    cos = np.sum(a * b, axis=1)
    assert b.shape == (24, 384) and np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-4)
    assert float(cos.min()) >= 0.96 and float(cos.mean()) >= 0.985 and float(cos.max()) < 0.99999
    alone = np.vstack([int8_minilm.embed([t]) for t in texts[:3]])
    np.testing.assert_array_equal(alone, b[:3])  # a text's vector does not depend on its batch
    assert int8_minilm.name == "all-MiniLM-L6-v2-int8" != onnx_minilm.name
    assert len(list(onnx_minilm.cache_dir.glob("*-int8.onnx"))) == 1
    assert int8_minilm.device == "cpu"


def test_a_vault_set_to_int8_records_it_and_refuses_it_where_it_cannot_run(
    tmp_path: Path,
) -> None:
    from memvault.errors import ConfigError, EmbeddingError

    with MemVault.open(tmp_path / "v.db", embedder_precision="int8", clock=FixedClock(T0)) as v:
        v.write("Adopted a beagle puppy from the shelter last weekend.")
        v.write("The quarterly tax filing is due at the end of April.")
        assert "beagle" in v.recall("What pet do I have?")[0].text
        assert v.stats()["embedder"]["vectors"]["name"] == "all-MiniLM-L6-v2-int8"
    for wrong in ({"embedder_runtime": "torch"}, {"embedder_device": "cuda"}):
        with pytest.raises(ConfigError, match="int8 runs all-MiniLM-L6-v2") as caught:
            MemVault.open(tmp_path / "v.db", embedder_precision="int8", **wrong)
        assert caught.value.setting == "embedder_precision"
    with pytest.raises(EmbeddingError, match="runs on the CPU"):
        OnnxEmbedder(tmp_path, device="cuda", precision="int8")


def test_one_tokenizer_pass_gives_sentence_transformers_own_vectors(
    torch_minilm: SentenceTransformerEmbedder,
) -> None:
    """The torch runtime tokenises a whole call once and batches by length (the GPU path of
    bulk import); its vectors are ``encode``'s, in the caller's order, and the padding it
    computed is counted."""
    texts = [
        "  a padded line  ",
        "word " * 400,  # past the 256-token limit
        "Ana moved to Porto in March.",
        "",
        "My dog Rex " * 30,
    ]
    before = (torch_minilm.tokens_read, torch_minilm.tokens_padded)
    ours = torch_minilm.embed(texts)
    theirs = torch_minilm._load().encode(texts, normalize_embeddings=True)
    assert torch_minilm._one_pass  # the one-pass path ran, not the fallback
    assert ours.shape == (5, 384)
    assert np.min(np.sum(ours * theirs, axis=1)) > 0.99999
    read = torch_minilm.tokens_read - before[0]
    padded = torch_minilm.tokens_padded - before[1]
    assert 256 < read < padded  # the long text was cut at 256; batches of one width pad


def test_loads_offline_and_embeds_normalised_batches(
    minilm: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    texts = [f"memory number {i}" for i in range(150)]  # more than one batch
    matrix = minilm.embed(texts)
    assert matrix.shape == (150, 384) and matrix.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-4)
    np.testing.assert_allclose(minilm.embed(texts[:3]), matrix[:3], atol=1e-5)
    assert minilm.embed([]).shape == (0, 384)


def test_meaning_beats_shared_words(minilm: Embedder) -> None:
    q, near, far = minilm.embed(
        ["my dog needs a walk", "the puppy wants to go outside", "a walk-in closet for my shoes"]
    )
    assert float(q @ near) > float(q @ far)


def test_recall_finds_a_paraphrase_with_no_shared_words(minilm: Embedder, tmp_path: Path) -> None:
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


GREETINGS = [
    ("Melanie", "Hey Caroline! So good to hear from you. How have you been, Caroline?"),
    ("Caroline", "Busy! I've been volunteering at the animal shelter every Saturday."),
    ("Melanie", "Caroline, that sounds lovely. I finished a landscape painting."),
    ("Caroline", "Thanks Melanie! Talk soon."),
    ("Melanie", "Bye Caroline, take care!"),
]


@pytest.mark.parametrize("names_in_vector", [False, True])
def test_the_query_vector_leaves_out_the_speakers_names(
    minilm: Embedder, tmp_path: Path, names_in_vector: bool
) -> None:
    """Turns are embedded without their speaker (docs/decisions/0009), so a speaker's name
    in the query's vector only pulls it toward the turns that say the name: greetings.
    Left out (the default), the turn by Caroline that answers has the higher cosine and is
    among the first two (the greeting also shares "good" with the question, a keyword); kept
    in (the comparison setting), the greeting that names her has the higher cosine and ranks
    first (docs/decisions/0010)."""
    with MemVault.open(
        tmp_path / "v.db",
        embedder=minilm,
        clock=FixedClock(T0),
        recall={"speakers_in_query_vector": names_in_vector},
    ) as vault:
        vault.write_many(
            [{"content": text, "speaker": who, "session_id": "s1"} for who, text in GREETINGS]
        )
        hits = vault.recall("What good cause does Caroline support?", k=3)
        dense = {h.text: h.explanation.signals["dense"] for h in hits}
        answer, greeting = GREETINGS[1][1], GREETINGS[0][1]
        if names_in_vector:
            assert hits[0].text == greeting and dense[greeting] > dense[answer]
        else:
            assert answer in [h.text for h in hits[:2]] and dense[answer] > dense[greeting]


def test_the_readme_demo_answers_right_with_the_real_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's first command runs the demo with MiniLM; its answers are read by people.
    (tests/e2e/test_demo.py checks the whole job with the hashing embedder.)"""
    import io

    from rich.console import Console

    from memvault.demo import run_demo

    monkeypatch.delenv("MEMVAULT_EMBEDDER", raising=False)
    monkeypatch.setenv("MEMVAULT_DATA_DIR", str(tmp_path / "data"))  # the model graph too
    summary = run_demo(tmp_path / "demo.db", Console(file=io.StringIO(), width=120))
    top = summary["top"]
    assert "Lisbon" in top["Where does Maya live?"]
    assert "manager" in top["Who is Maya's manager?"]
    sports = top["What sports does Maya do?"]
    assert any(s in sports for s in ("surfing", "marathon", "trail running")), sports
    assert "Lisbon" in summary["top_after_dream"]


def test_minilm_near_duplicates_that_differ_in_an_id_are_not_merged(
    tmp_path: Path, onnx_minilm: OnnxEmbedder
) -> None:
    """With the real model such turns sit at cosine 0.92-0.97, most pairs above the merge
    threshold (0.92): the dream keeps all four, and each is found first by its own number,
    also when all four are asked for (the same words for another number are no newer version
    of the one the question names: no "newest first" among them)."""
    start = datetime(2025, 3, 3, 19, tzinfo=UTC)
    said = [f"I patched issue #{n} in the payments gateway today." for n in (14, 58, 102, 231)]
    vectors = onnx_minilm.embed(said)
    sims = vectors @ vectors.T
    assert int(np.sum(sims[np.triu_indices(4, 1)] >= 0.92)) >= 3  # merge candidates
    with MemVault.open(tmp_path / "m.db", embedder=onnx_minilm) as vault:
        for day, text in enumerate(said):
            vault.write_many(
                [{"content": text, "speaker": "Bo", "occurred_at": start + timedelta(days=day)}],
                namespace="bo",
            )
        report = vault.dream(namespace="bo", apply=True, force=True, now=start + timedelta(days=5))
        assert report.report["stages"]["consolidate"]["episodes_merged"] == 0
        for text in said:
            key = "#" + text.split("#")[1].split()[0]
            for k in (1, 4):
                hit = vault.recall(
                    f"issue {key}", namespace="bo", k=k, now=start + timedelta(days=6)
                )
                assert hit[0].text == text


def test_device_auto_is_the_cpu_on_a_machine_without_cuda(
    torch_minilm: SentenceTransformerEmbedder, onnx_minilm: OnnxEmbedder, tmp_path: Path
) -> None:
    """CI has no GPU: auto resolves to the CPU for both runtimes, and asking for CUDA is
    refused with what to install (the CUDA path itself runs only where a GPU is:
    docs/benchmarks.md says what CI cannot verify)."""
    import onnxruntime as ort
    import torch

    from memvault.bootstrap import build_embedder, load_settings
    from memvault.errors import EmbeddingError

    assert "CUDAExecutionProvider" not in ort.get_available_providers()
    assert not torch.cuda.is_available()
    assert torch_minilm.device == "cpu" and onnx_minilm.device == "cpu"
    assert onnx_minilm.embed(["a quick check"]).shape == (1, 384)
    for runtime in ("onnx", "torch"):
        settings = load_settings(
            data_dir=tmp_path, embedder_runtime=runtime, embedder_device="cuda"
        )
        with pytest.raises(EmbeddingError, match="cuda") as caught:
            build_embedder(settings).embed(["refused"])
        assert "embedder_device=auto" in str(caught.value)
