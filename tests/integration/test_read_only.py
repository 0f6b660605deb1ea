"""A vault file opened read-only still answers: recall, facts and stats read it without
writing a byte (the recall log is skipped with a warning); a write is refused with an error
that says why. Root ignores file permissions, so the tests open the store read-only
explicitly: the same path a file this process may not write takes."""

from __future__ import annotations

import hashlib
import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder
from memvault.errors import UnusableStoreError
from memvault.kg.sqlite import SQLiteStore

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_read_only_vault_recalls_and_refuses_writes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "v.db"
    with MemVault.open(db, embedder=HashingEmbedder(), clock=FixedClock(NOW)) as v:
        v.write("I live in Porto.", speaker="Maya")
    before = digest(db)
    store = SQLiteStore(db, read_only=True)
    with MemVault.open(db, store=store, embedder=HashingEmbedder(), clock=FixedClock(NOW)) as v:
        with caplog.at_level(logging.WARNING):
            found = v.recall("where does Maya live", k=3)
        assert "Porto" in found[0].text
        assert found.recall_id is None and "recall not logged" in caplog.text
        assert [f.object for f in v.facts(subject="Maya")] == ["Porto"]
        with pytest.raises(UnusableStoreError, match="read-only"):
            v.write("I moved to Lisbon.", speaker="Maya")
    assert digest(db) == before


def test_a_read_only_file_of_an_older_schema_says_how_to_upgrade(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "old.db"
    SQLiteStore(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 1")
    with pytest.raises(UnusableStoreError, match="write access to upgrade"):
        SQLiteStore(db, read_only=True)
