"""An embedding API through litellm's ``embedding()`` (any provider litellm knows: OpenAI,
Cohere, Voyage, Azure, a local Ollama...): ``embedder = "litellm"`` with ``embedder_model``.

litellm is imported on the first call (as for the LLM port). Texts go in batches; every
answer must hold one vector per text, all of one dimension, or the call fails with an
EmbeddingError that says what came back. Vectors are normalised to unit length. The
dimension is read from the first answer (or given). ``mock_vector`` makes litellm answer
without a network call (its ``mock_response``: one vector per call, so the mock sends one
text per call): that is how tests run it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from memvault.embed.port import normalise_rows
from memvault.errors import EmbeddingError


class LiteLLMEmbedder:
    fallback = False

    def __init__(
        self,
        model: str,
        *,
        batch_size: int | None = None,
        dim: int | None = None,
        mock_vector: Sequence[float] | None = None,
    ):
        self.model = model
        self.name = f"litellm:{model}"
        self._dim = dim
        self.mock_vector = list(mock_vector) if mock_vector is not None else None
        self.batch_size = batch_size or (1 if self.mock_vector is not None else 64)
        self.calls = 0

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.embed(["dimension probe"]).shape[1])
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        from memvault.llm.provider_litellm import _litellm, _quiet

        litellm = _litellm()
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            part = [t if t.strip() else " " for t in texts[start : start + self.batch_size]]
            extra: dict[str, Any] = {}
            if self.mock_vector is not None:
                extra["mock_response"] = self.mock_vector
            try:
                with _quiet():
                    answer = litellm.embedding(model=self.model, input=part, **extra)
            except Exception as exc:  # litellm raises its providers' own kinds
                raise EmbeddingError(
                    f"{self.name}: the embedding call failed ({type(exc).__name__}: {exc})"
                ) from exc
            self.calls += 1
            got = [d["embedding"] if isinstance(d, dict) else d.embedding for d in answer.data]
            if len(got) != len(part):
                raise EmbeddingError(
                    f"{self.name}: {len(part)} texts sent, {len(got)} vectors came back"
                )
            rows += got
        widths = {len(r) for r in rows}
        if len(widths) != 1 or (self._dim is not None and widths != {self._dim}):
            raise EmbeddingError(
                f"{self.name}: vectors of {sorted(widths)} dimensions came back"
                + (f", {self._dim} expected" if self._dim is not None else "")
            )
        self._dim = widths.pop()
        return normalise_rows(np.asarray(rows, dtype=np.float32))
