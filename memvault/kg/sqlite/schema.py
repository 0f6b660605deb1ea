"""SQLite schema and its forward migrations.

Each record is stored whole as JSON (``body``) beside the columns that are indexed or
filtered on, so adding a model field needs no migration; adding an index or a lookup does.
``PRAGMA user_version`` holds the version; migrations run in order, each in a transaction.
"""

from __future__ import annotations

import sqlite3

from memvault.errors import SchemaVersionError

SPEAKER = "json_extract(body, '$.speaker')"  # indexed as written: queries must match it

MIGRATIONS: list[list[str]] = [
    # 1: the first schema
    [
        """CREATE TABLE namespaces (
            name TEXT PRIMARY KEY,
            created_at REAL NOT NULL,
            seq INTEGER NOT NULL DEFAULT 0
        )""",
        """CREATE TABLE sessions (
            namespace TEXT NOT NULL, id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
            PRIMARY KEY (namespace, id)
        )""",
        """CREATE TABLE episodes (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            namespace TEXT NOT NULL,
            external_id TEXT,
            content_hash TEXT NOT NULL,
            session_id TEXT,
            position INTEGER,
            occurred_at REAL NOT NULL,
            seq INTEGER NOT NULL,
            body TEXT NOT NULL
        )""",
        "CREATE UNIQUE INDEX episodes_external ON episodes(namespace, external_id)"
        " WHERE external_id IS NOT NULL",
        "CREATE INDEX episodes_hash ON episodes(namespace, content_hash)",
        "CREATE INDEX episodes_time ON episodes(namespace, occurred_at, id)",
        "CREATE INDEX episodes_session ON episodes(namespace, session_id, position)",
        "CREATE INDEX episodes_seq ON episodes(namespace, seq)",
        """CREATE TABLE entities (
            id TEXT PRIMARY KEY, namespace TEXT NOT NULL, seq INTEGER NOT NULL,
            body TEXT NOT NULL
        )""",
        "CREATE INDEX entities_seq ON entities(namespace, seq)",
        """CREATE TABLE entity_names (
            namespace TEXT NOT NULL, norm TEXT NOT NULL, entity_id TEXT NOT NULL,
            PRIMARY KEY (namespace, norm, entity_id)
        )""",
        "CREATE INDEX entity_names_entity ON entity_names(entity_id)",
        """CREATE TABLE facts (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            namespace TEXT NOT NULL,
            subject_id TEXT NOT NULL,
            object_id TEXT,
            predicate TEXT NOT NULL,
            expired INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            body TEXT NOT NULL
        )""",
        "CREATE INDEX facts_subject ON facts(namespace, subject_id, predicate)",
        "CREATE INDEX facts_object ON facts(namespace, object_id)",
        "CREATE INDEX facts_predicate ON facts(namespace, predicate)",
        "CREATE INDEX facts_seq ON facts(namespace, seq)",
        """CREATE TABLE mentions (
            namespace TEXT NOT NULL, entity_id TEXT NOT NULL, episode_id TEXT NOT NULL,
            PRIMARY KEY (namespace, entity_id, episode_id)
        )""",
        "CREATE INDEX mentions_episode ON mentions(episode_id)",
        """CREATE TABLE vectors (
            namespace TEXT NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL,
            seq INTEGER NOT NULL, vec BLOB NOT NULL,
            PRIMARY KEY (namespace, kind, id)
        )""",
        "CREATE INDEX vectors_seq ON vectors(namespace, kind, seq)",
        # gen moves when a vector is replaced or removed: readers then reload, not append
        """CREATE TABLE vector_state (
            namespace TEXT NOT NULL, kind TEXT NOT NULL,
            gen INTEGER NOT NULL DEFAULT 0, seq INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (namespace, kind)
        )""",
        """CREATE TABLE deletions (
            namespace TEXT NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, seq INTEGER NOT NULL
        )""",
        "CREATE INDEX deletions_seq ON deletions(namespace, seq)",
        # Keyword indexes. ``ns`` holds one token naming the namespace so a MATCH can be
        # confined to it; bm25() weighs that column 0.
        "CREATE VIRTUAL TABLE episodes_fts USING fts5(ns, text, tokenize='porter unicode61')",
        "CREATE VIRTUAL TABLE facts_fts USING fts5(ns, text, tokenize='porter unicode61')",
    ],
    # 2: documents beside the records (dream runs, journal entries, review items)
    [
        """CREATE TABLE docs (
            namespace TEXT NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL,
            status TEXT, created_at REAL NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
            PRIMARY KEY (namespace, kind, id)
        )""",
        "CREATE INDEX docs_list ON docs(namespace, kind, status, created_at)",
    ],
    # 3: who spoke in a namespace, read without parsing every body (recall leaves the
    # speakers' names out of the query's vector: docs/decisions/0010)
    [f"CREATE INDEX episodes_speaker ON episodes(namespace, {SPEAKER})"],
]

SCHEMA_VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection, path: str) -> int:
    """Bring the file up to :data:`SCHEMA_VERSION`; refuse a file from a newer memvault."""
    found = conn.execute("PRAGMA user_version").fetchone()[0]
    if found > SCHEMA_VERSION:
        raise SchemaVersionError(found, SCHEMA_VERSION, path)
    for version in range(found + 1, SCHEMA_VERSION + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in MIGRATIONS[version - 1]:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return SCHEMA_VERSION
