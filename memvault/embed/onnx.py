"""all-MiniLM-L6-v2 run by ONNX Runtime: the same packaged weights, about three times faster
than PyTorch for a single query on a CPU.

The first use exports the packaged model (encoder, mean pooling and normalisation in one
graph) to ``<cache_dir>/all-MiniLM-L6-v2-<weights size>-<opset>.onnx`` with PyTorch, once,
offline (a few seconds); later processes only load the file. Tokenisation uses the model's
own ``tokenizer.json`` with its sequence limit (256 tokens, as sentence-transformers does),
and texts are batched by length so short ones are not padded to long ones. Vectors match the
PyTorch embedder's (cosine ≥ 0.9999 on a sample: ``tests/integration/test_minilm.py``), so
both carry the model's name and a vault written with one is read with the other.

``precision="int8"`` (setting ``embedder_precision``) runs a copy of that graph with its weights
quantised to 8-bit integers (ONNX Runtime's dynamic quantisation, per channel; written once
beside it), one text a run (the activations' scale is the run's, so a batch would make a
text's vector depend on its neighbours): about twice the long texts per second on a CPU with
8-bit dot products (docs/benchmarks.md), vectors at cosine ≈ 0.99 to full precision's. They
are not full precision's, so it carries its own name (``all-MiniLM-L6-v2-int8``): a namespace keeps
the one it was written with, and ``memvault reembed`` moves it.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memvault.embed.devices import onnx_has_cuda
from memvault.embed.port import remembered
from memvault.embed.sentence import MODEL_PACKAGE, packaged_model_path, quiet_loading
from memvault.errors import EmbeddingError

OPSET = 17


def onnx_available() -> bool:
    """True when ONNX Runtime and the exporter's parts (torch, transformers, the packaged
    model) are installed."""
    import importlib.util

    return all(
        importlib.util.find_spec(name) is not None
        for name in ("onnxruntime", "torch", "transformers", "tokenizers", MODEL_PACKAGE)
    )


def onnx_device(requested: str) -> str:
    """``auto`` → ``cuda`` when ONNX Runtime has its CUDA provider (the onnxruntime-gpu
    package on a machine with a GPU), else ``cpu``; ``cuda`` without it is refused."""
    if requested == "cpu":
        return "cpu"
    usable = onnx_has_cuda()
    if requested == "cuda" and not usable:
        raise EmbeddingError(
            "embedder_device=cuda, but ONNX Runtime has no CUDA provider here; install "
            "onnxruntime-gpu on a machine with an NVIDIA GPU, or set embedder_device=auto"
        )
    return "cuda" if usable else "cpu"


def quantize(graph: Path, path: Path) -> None:
    """``graph`` with its weights as 8-bit integers (per output channel) and its activations
    quantised as it runs; written to a temporary file and renamed, like :func:`export`."""
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:  # the onnx package, which the quantiser reads graphs with
        raise EmbeddingError(
            f"embedder_precision=int8 needs ONNX Runtime's quantiser ({exc}); install the "
            "'ml' extra: pip install -c constraints.txt '.[ml]'"
        ) from exc
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    root = logging.getLogger()  # the quantiser advises pre-processing on the root logger:
    level = root.level  # for a transformer's dynamic quantisation there is nothing to do
    root.setLevel(logging.ERROR)
    try:
        quantize_dynamic(str(graph), str(tmp), weight_type=QuantType.QInt8, per_channel=True)
    finally:
        root.setLevel(level)
    os.replace(tmp, path)


class OnnxEmbedder:
    fallback = False
    dim = 384

    def __init__(
        self,
        cache_dir: Path,
        *,
        model_path: str | None = None,
        batch_size: int | None = None,
        device: str = "auto",
        precision: str = "fp32",
        spin: bool = False,
    ):
        if precision not in ("fp32", "int8"):
            raise EmbeddingError(f"unknown precision {precision!r}: fp32 or int8")
        if precision == "int8" and device == "cuda":
            raise EmbeddingError(
                "embedder_precision=int8 runs on the CPU; on a GPU leave it at fp32 (the GPU "
                "path computes in fp16 already)"
            )
        self.precision = precision
        # ONNX Runtime's worker threads spin between runs by default: on a busy CPU they
        # take time from the threads with work, and a one-question run waits on them (2
        # cores, two busy processes beside it: p95 of a query 13-17 ms spinning, 7-13 not;
        # batch throughput within noise; bench/embed_contention.py)
        self.spin = spin
        self.name = "all-MiniLM-L6-v2" + ("-int8" if precision == "int8" else "")
        self.cache_dir = Path(cache_dir)
        self.requested = "cpu" if precision == "int8" else device
        self._device: str | None = None
        self.batch_size = batch_size
        # tokens read and tokens computed (with the padding of each batch): their ratio is
        # what length-bucketing saves (bench/ingest.py reports it)
        self.tokens_read = 0
        self.tokens_padded = 0
        self.texts_tokenized = 0
        # the encodings ``reach`` made, for the ``embed`` of the same texts that follows it
        # (catch-up asks what a long text's vector reads, then embeds it: tokenised once)
        self._memo: dict[str, Any] = {}
        self._model_path = model_path
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    @property
    def device(self) -> str:
        """Where the model runs (``auto`` resolved on first use: asking costs an import)."""
        if self._device is None:
            self._device = onnx_device(self.requested)
        return self._device

    def _batch(self) -> int:
        if self.precision == "int8":
            # one text a run: the quantiser scales activations by the whole batch's range, so
            # a text's vector would depend on its neighbours; alone it is the same every time,
            # and on long texts no slower (49 against 42 texts/s at 16 a batch, 2 cores)
            return 1
        # a GPU wants wide batches; a CPU is a little faster with narrow ones (bench/ingest.py)
        return self.batch_size or (256 if self.device == "cuda" else 16)

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._session is None:
                try:
                    import onnxruntime as ort
                    from tokenizers import Tokenizer
                except ImportError as exc:
                    raise EmbeddingError(
                        f"cannot run the embedding model with ONNX Runtime ({exc}); install "
                        "the 'ml' extra: pip install -c constraints.txt '.[ml]'"
                    ) from exc
                model_dir = Path(self._model_path or packaged_model_path())
                graph = self._graph(model_dir)
                limit = json.loads((model_dir / "sentence_bert_config.json").read_text())
                tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
                tokenizer.enable_truncation(max_length=int(limit["max_seq_length"]))
                tokenizer.no_padding()
                options = ort.SessionOptions()
                options.intra_op_num_threads = os.cpu_count() or 1
                options.log_severity_level = 3
                options.add_session_config_entry(
                    "session.intra_op.allow_spinning", "1" if self.spin else "0"
                )
                providers = ["CPUExecutionProvider"]
                if self.device == "cuda":
                    providers.insert(0, "CUDAExecutionProvider")
                self._session = ort.InferenceSession(str(graph), options, providers=providers)
                self._tokenizer = tokenizer
            return self._session, self._tokenizer

    def _graph(self, model_dir: Path) -> Path:
        weights = model_dir / "model.safetensors"
        size = weights.stat().st_size if weights.exists() else 0
        path = self.cache_dir / f"all-MiniLM-L6-v2-{size}-{OPSET}.onnx"
        if not path.exists():
            export(model_dir, path)
        if self.precision == "fp32":
            return path
        quantized = path.with_name(f"{path.stem}-int8.onnx")
        if not quantized.exists():
            quantize(path, quantized)
        return quantized

    def reach(self, texts: Sequence[str]) -> list[int]:
        """Characters of each text the vector reads: where its last token within the
        model's limit ends."""
        _, tokenizer = self._load()
        texts = [str(t) for t in texts]
        encoded = tokenizer.encode_batch(texts)
        self.texts_tokenized += len(texts)
        self._memo = dict(zip(texts, encoded, strict=True))
        return [max((end for _, end in x.offsets), default=0) for x in encoded]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        session, tokenizer = self._load()
        encoded = remembered(self._memo, [str(t) for t in texts], self._encode(tokenizer))
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i].ids))
        out = np.zeros((len(encoded), self.dim), dtype=np.float32)
        size = self._batch()
        for start in range(0, len(order), size):
            part = order[start : start + size]
            width = max(len(encoded[i].ids) for i in part)
            self.tokens_read += sum(len(encoded[i].ids) for i in part)
            self.tokens_padded += width * len(part)
            ids = np.zeros((len(part), width), dtype=np.int64)
            mask = np.zeros((len(part), width), dtype=np.int64)
            for row, i in enumerate(part):
                n = len(encoded[i].ids)
                ids[row, :n] = encoded[i].ids
                mask[row, :n] = 1
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            out[part] = session.run(None, feed)[0]
        return out

    def _encode(self, tokenizer: Any) -> Callable[[list[str]], list[Any]]:
        def encode(texts: list[str]) -> list[Any]:
            self.texts_tokenized += len(texts)
            return list(tokenizer.encode_batch(texts))

        return encode


def export(model_dir: Path, path: Path) -> None:
    """The packaged encoder with mean pooling and normalisation, as one ONNX graph (written to
    a temporary file and renamed, so a concurrent process never loads half of it)."""
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise EmbeddingError(
            f"exporting the embedding model needs torch and transformers ({exc}); install the "
            "'ml' extra: pip install -c constraints.txt '.[ml]'"
        ) from exc

    class Pooled(torch.nn.Module):
        def __init__(self, encoder: Any) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, ids: Any, mask: Any, types: Any) -> Any:
            hidden = self.encoder(input_ids=ids, attention_mask=mask, token_type_ids=types)
            weights = mask.unsqueeze(-1).to(hidden.last_hidden_state.dtype)
            summed = (hidden.last_hidden_state * weights).sum(1)
            mean = summed / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, dim=1)

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    quiet_loading()
    encoder = AutoModel.from_pretrained(str(model_dir)).eval()
    sample = torch.ones((1, 4), dtype=torch.int64)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    axes = {0: "batch", 1: "tokens"}
    # the TorchScript exporter is deprecated in favour of torch.export, which needs onnxscript;
    # the graph is checked against the PyTorch model's vectors in the tests
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Pooled(encoder),
            (sample, sample, torch.zeros_like(sample)),
            str(tmp),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["embedding"],
            dynamic_axes={
                "input_ids": axes,
                "attention_mask": axes,
                "token_type_ids": axes,
                "embedding": {0: "batch"},
            },
            opset_version=OPSET,
            dynamo=False,
        )
    os.replace(tmp, path)
