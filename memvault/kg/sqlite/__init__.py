"""The embedded store: one SQLite file in WAL mode."""

from memvault.kg.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
