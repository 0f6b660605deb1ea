import numpy as np
import pytest

from memvault.bootstrap import build_embedder, load_settings
from memvault.embed import Embedder, FakeEmbedder, HashingEmbedder
from memvault.errors import ConfigError


def test_hashing_fallback_is_labelled_normalised_and_lexical() -> None:
    e = HashingEmbedder(dim=256)
    assert "fallback" in e.name
    m = e.embed(["red apples and pears", "pears and red apples", "quantum chromodynamics"])
    assert m.shape == (3, 256) and m.dtype == np.float32
    assert np.allclose(np.linalg.norm(m, axis=1), 1.0, atol=1e-5)
    assert m[0] @ m[1] > 0.6 > m[0] @ m[2]


def test_fake_embedder_is_deterministic_and_pinnable() -> None:
    fake = FakeEmbedder(dim=4, pinned={"cat": [1, 0, 0, 0], "kitten": [0.9, 0.1, 0, 0]})
    a, b = fake.embed(["x", "x"]), fake.embed(["cat", "kitten"])
    assert np.array_equal(a[0], a[1])
    assert b[0] @ b[1] > 0.9
    assert isinstance(fake, Embedder)


def test_settings_read_the_environment_with_prefix_and_nesting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMVAULT_RECALL__CANDIDATES", "30")
    monkeypatch.setenv("MEMVAULT_DEFAULT_NAMESPACE", "bob")
    monkeypatch.setenv("MEMVAULT_LLM_MODEL", "")  # empty is ignored, not ""
    s = load_settings()
    assert s.recall.candidates == 30 and s.default_namespace == "bob" and s.llm_model is None


def test_server_mode_refuses_the_default_secret() -> None:
    with pytest.raises(ConfigError, match="SECRET_KEY"):
        load_settings(mode="server")
    assert load_settings(mode="server", secret_key="s3cret").mode == "server"


@pytest.mark.parametrize(
    "bad",
    [{"max_content_chars": 5}, {"embedder": "word2vec"}, {"recall": {"fact_half_life_days": -1}}],
)
def test_malformed_settings_name_the_setting(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(**bad)
    assert next(iter(bad)) in str(info.value)


def test_channel_weights_given_by_name_change_only_those(monkeypatch: pytest.MonkeyPatch) -> None:
    """'{"thin": 0}' turns one signal off and keeps the others (it once replaced the whole
    mapping, so every channel weighed 0)."""
    monkeypatch.setenv("MEMVAULT_RECALL__CHANNEL_WEIGHTS", '{"thin": 0}')
    weights = load_settings().recall.channel_weights
    assert weights["thin"] == 0 and weights["dense"] == weights["keyword"] == 0.5
    assert weights["person"] == 0.3


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ({"thinn": 0}, "unknown signal(s) thinn: the names are dense, keyword"),
        ({"dense": -1}, "dense=-1: 0 or more"),
        ({"thin": 1.5}, "thin=1.5: the share of a score taken, 0 to 1"),
        ({"asks": 2}, "asks=2: the share of a score taken, 0 to 1"),
    ],
)
def test_a_channel_weight_no_signal_can_take_is_refused(given: dict, says: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(recall={"channel_weights": given})
    assert says in str(info.value) and "channel_weights" in str(info.value)


def test_hashing_embedder_is_chosen_only_when_asked_or_torch_is_missing() -> None:
    assert isinstance(build_embedder(load_settings(embedder="hashing")), HashingEmbedder)
    assert not isinstance(build_embedder(load_settings(embedder="minilm")), HashingEmbedder)


def test_auto_runtime_moves_to_torch_only_where_a_gpu_would_otherwise_sit_idle() -> None:
    from memvault.embed.devices import choose_runtime

    def pick(runtime: str = "auto", device: str = "auto", **kw: bool) -> str:
        base = {"onnx_installed": True, "gpu_wanted": True}
        return choose_runtime(runtime, device, **(base | kw))  # type: ignore[arg-type]

    # no GPU (CI): ONNX Runtime on the CPU, torch only when ONNX Runtime is missing
    assert pick(gpu_wanted=False) == "onnx"
    assert pick(gpu_wanted=False, onnx_installed=False) == "torch"
    assert pick(device="cpu", torch_cuda=True) == "onnx"
    # a GPU: ONNX Runtime's CUDA build keeps it; a CPU build gives way to torch's CUDA
    assert pick(onnx_cuda=True, torch_cuda=True) == "onnx"
    assert pick(onnx_cuda=False, torch_cuda=True) == "torch"
    assert pick(onnx_cuda=False, torch_cuda=False) == "onnx"  # cuda is refused there
    # what the user named is what runs
    assert pick("onnx", onnx_cuda=False, torch_cuda=True) == "onnx"
    assert pick("torch", device="cpu") == "torch"


def test_auto_runtime_on_this_machine_follows_its_gpu() -> None:
    """CI has no GPU: ONNX Runtime on the CPU. On a GPU machine (the device check in
    docs/benchmarks.md) torch's CUDA where ONNX Runtime is the CPU build."""
    from memvault.embed.devices import (
        nvidia_driver_present,
        onnx_has_cuda,
        runtime_for,
        torch_has_cuda,
    )

    gpu = nvidia_driver_present()
    expected = "torch" if gpu and not onnx_has_cuda() and torch_has_cuda() else "onnx"
    assert runtime_for("auto", "auto", onnx_installed=True) == expected
    assert runtime_for("auto", "cpu", onnx_installed=True) == "onnx"
