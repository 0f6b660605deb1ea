"""The embedding port: texts in, unit-normalised float32 rows out, in batches."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    name: str  # recorded with exports so vectors are only reused by the same model

    @property
    def dim(self) -> int:
        """The vectors' dimension (a model may be read to know it)."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An array of shape (len(texts), dim), float32, each row of norm 1 (or 0)."""
        ...


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    m = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return m / norms


T = TypeVar("T")


def remembered(
    memo: dict[str, T], texts: list[str], encode: Callable[[list[str]], list[T]]
) -> list[T]:
    """Each text's encoding: the one ``memo`` kept of it (taken out: used once), else made by
    one ``encode`` call over the texts it did not keep. An embedder's ``reach`` keeps the
    encodings it made for the ``embed`` that follows, so a long text is tokenised once."""
    found = [memo.pop(t, None) for t in texts]
    missing = [t for t, f in zip(texts, found, strict=True) if f is None]
    fresh = iter(encode(missing) if missing else [])
    return [f if f is not None else next(fresh) for f in found]


def reach(embedder: Embedder, texts: Sequence[str]) -> list[int] | None:
    """How many characters of each text the embedder's one vector reads (an embedder that
    truncates by tokens says, through a ``reach`` method of its own), or None: it does not
    say (the caller assumes a window's worth)."""
    own = getattr(embedder, "reach", None)
    if not callable(own) or not texts:
        return None
    try:
        return list(own(texts))
    except (NotImplementedError, TypeError, ValueError):  # e.g. a tokenizer without offsets
        return None


def lexical(embedder: Embedder) -> bool:
    """True when the embedder's vectors know words, not meaning (an embedder says so with a
    ``lexical`` attribute of its own: the hashing fallback). Recall then keeps the keyword
    channel's whole weight, as meaning would find nothing words miss."""
    return bool(getattr(embedder, "lexical", False))
