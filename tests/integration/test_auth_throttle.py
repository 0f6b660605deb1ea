"""The failed-auth throttle: in one process, and shared through a real Redis by API replicas
(falls back to the process's own counts when Redis is down)."""

from __future__ import annotations

from api.security import AuthThrottle
from memvault.coord.redis import RedisCoordination


def test_in_process_block_and_trusted_keys() -> None:
    t = AuthThrottle(max_failures=3, window_s=60, block_s=30)
    t.succeeded("10.0.0.1", "good")
    for i in range(3):
        assert t.retry_after("10.0.0.1", f"guess{i}", now=100.0 + i) == 0
        t.failed("10.0.0.1", now=100.0 + i)
    assert t.retry_after("10.0.0.1", "guess9", now=103.0) > 0
    assert t.retry_after("10.0.0.1", "good", now=103.0) == 0  # a key that worked here
    assert t.retry_after("10.0.0.2", "other", now=103.0) == 0  # other clients unaffected
    assert t.retry_after("10.0.0.1", "guess9", now=133.0) == 0  # the block ends


def test_replicas_share_counts_through_redis(redis_url: str) -> None:
    a = AuthThrottle(max_failures=4, window_s=60, block_s=30, shared=RedisCoordination(redis_url))
    b = AuthThrottle(max_failures=4, window_s=60, block_s=30, shared=RedisCoordination(redis_url))
    for replica in (a, b, a, b):  # a guesser spreading its tries over two API replicas
        replica.failed("10.0.0.9")
    assert a.retry_after("10.0.0.9", "guess") > 0 and b.retry_after("10.0.0.9", "guess") > 0
    a.succeeded("10.0.0.9", "good")
    assert b.retry_after("10.0.0.9", "good") == 0  # trusted on every replica


def test_redis_down_falls_back_to_the_process_counts() -> None:
    gone = RedisCoordination("redis://127.0.0.1:1", timeout_s=0.2)
    t = AuthThrottle(max_failures=2, window_s=60, block_s=30, shared=gone)
    t.failed("10.0.0.5")
    t.failed("10.0.0.5")
    assert t.retry_after("10.0.0.5", "guess") > 0
