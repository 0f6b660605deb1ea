"""memvault: long-term memory for AI agents.

A bi-temporal knowledge graph of memories with a write path, hybrid recall and a background
"dream" that keeps it healthy. Embedded by default (one SQLite file, no servers).
"""

from memvault.clock import Clock, FixedClock, SystemClock
from memvault.config import RecallSettings, Settings
from memvault.errors import (
    ConfigError,
    ConflictError,
    CoordinationUnavailable,
    DateRangeError,
    EmbeddingError,
    InvalidBatchError,
    InvalidInputError,
    LLMError,
    MemvaultError,
    NotFoundError,
    SchemaVersionError,
    StoreError,
    UnusableStoreError,
)
from memvault.kg.model import Entity, Episode, Fact, MemoryType, Session, Tier
from memvault.recall import Hit
from memvault.vault import MemVault

__version__ = "0.1.0"

__all__ = [
    "AsyncClient",
    "Client",
    "Clock",
    "ConfigError",
    "ConflictError",
    "CoordinationUnavailable",
    "DateRangeError",
    "EmbeddingError",
    "Entity",
    "Episode",
    "Fact",
    "FixedClock",
    "Hit",
    "InvalidBatchError",
    "InvalidInputError",
    "LLMError",
    "MemVault",
    "MemoryType",
    "MemvaultError",
    "NotFoundError",
    "RecallSettings",
    "SchemaVersionError",
    "Session",
    "Settings",
    "StoreError",
    "SystemClock",
    "Tier",
    "UnusableStoreError",
    "__version__",
]


def __getattr__(name: str) -> object:
    """``memvault.Client`` and ``memvault.AsyncClient`` (the REST API's clients) load httpx
    only when asked for."""
    if name in ("Client", "AsyncClient"):
        from memvault import client

        return getattr(client, name)
    raise AttributeError(f"module 'memvault' has no attribute {name!r}")
