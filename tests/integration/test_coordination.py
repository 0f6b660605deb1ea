"""One contract for both coordination stores: SQLite (embedded) and a real Redis (server)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memvault.coord import Coordination, SQLiteCoordination
from memvault.coord.redis import CoordinationUnavailable, RedisCoordination
from memvault.devservers import LocalRedis
from memvault.errors import ConflictError


@pytest.fixture(params=["sqlite", "redis"])
def coord(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Coordination]:
    if request.param == "sqlite":
        c: Coordination = SQLiteCoordination(tmp_path / "c.db")
    else:
        c = RedisCoordination(request.getfixturevalue("redis_url"))
    yield c
    c.close()


def test_values_round_trip(coord: Coordination) -> None:
    assert coord.get("dream:maya") is None
    coord.put("dream:maya", {"last_dream_at": "2025-01-01T00:00:00+00:00", "watermark": 7})
    assert coord.get("dream:maya") == {"last_dream_at": "2025-01-01T00:00:00+00:00", "watermark": 7}
    coord.put("dream:maya", {"watermark": 8})
    assert coord.get("dream:maya") == {"watermark": 8}


def test_a_lease_is_exclusive_until_released_or_expired(coord: Coordination) -> None:
    now = time.time()
    assert coord.acquire("dream-lock:maya", "host:1:a", 60, now=now)
    assert not coord.acquire("dream-lock:maya", "host:2:b", 60, now=now + 1)
    assert coord.acquire("dream-lock:maya", "host:1:a", 60, now=now + 1)  # its owner renews
    lease = coord.holder("dream-lock:maya", now=now + 1)
    assert lease is not None and lease.owner == "host:1:a"
    coord.release("dream-lock:maya", "host:2:b")  # not the owner: nothing happens
    assert coord.holder("dream-lock:maya", now=now + 1) is not None
    # expired: another owner takes it over
    assert coord.acquire("dream-lock:maya", "host:2:b", 60, now=now + 120)
    assert coord.holder("dream-lock:maya", now=now + 121).owner == "host:2:b"  # type: ignore[union-attr]
    coord.release("dream-lock:maya", "host:2:b")
    assert coord.holder("dream-lock:maya") is None


def test_locked_refuses_a_live_holder_and_frees_on_exit(coord: Coordination) -> None:
    assert coord.acquire("job", "elsewhere:1:x", 60)
    with (
        pytest.raises(ConflictError, match="held by elsewhere:1:x"),
        coord.locked("job", "here:2:y", 60),
    ):
        pass
    coord.release("job", "elsewhere:1:x")
    with coord.locked("job", "here:2:y", 60):
        assert coord.holder("job").owner == "here:2:y"  # type: ignore[union-attr]
    assert coord.holder("job") is None


def test_redis_forgets_a_crashed_holders_lease_in_real_time(redis_url: str) -> None:
    c = RedisCoordination(redis_url)
    assert c.acquire("short", "gone:1:z", 0.2)
    time.sleep(0.4)
    assert c.acquire("short", "next:2:w", 60)  # the key expired in Redis itself
    assert c.incr("sessions:maya") == 1 and c.incr("sessions:maya", 2) == 3
    c.cache_put("hot", {"v": 1}, ttl_s=0.2)
    assert c.cache_get("hot") == {"v": 1}
    time.sleep(0.4)
    assert c.cache_get("hot") is None
    c.close()


def test_redis_down_is_a_clear_unavailable_error() -> None:
    server = LocalRedis(graph=False).start()
    c = RedisCoordination(server.url, timeout_s=0.5)
    c.put("k", {"v": 1})
    server.stop()
    assert not c.ping()
    with pytest.raises(CoordinationUnavailable, match="unavailable"):
        c.get("k")
    c.close()
