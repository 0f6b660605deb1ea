"""Coordination on Redis (server mode): gate state and counters as JSON values, dream locks
as leases that Redis also expires, caches with a TTL.

Lease checks run as Lua scripts, so take-over of an expired lease and release by its owner
only are each one atomic step, whatever the number of workers.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from memvault.coord.port import Coordination, Lease
from memvault.errors import CoordinationUnavailable

if TYPE_CHECKING:
    import redis

_ACQUIRE = """
local cur = redis.call('HMGET', KEYS[1], 'owner', 'expires_at')
if cur[1] and tonumber(cur[2]) > tonumber(ARGV[3]) and cur[1] ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'expires_at', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"""
_RELEASE = """
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class RedisCoordination(Coordination):
    def __init__(self, url: str, *, prefix: str = "memvault:", timeout_s: float = 2.0):
        import redis as redis_lib

        self.url, self.prefix = url, prefix
        self._redis: redis.Redis = redis_lib.Redis.from_url(
            url,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            decode_responses=True,
        )
        self._acquire = self._redis.register_script(_ACQUIRE)
        self._release = self._redis.register_script(_RELEASE)

    def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        import redis as redis_lib

        try:
            return fn(*args, **kwargs)
        except redis_lib.RedisError as exc:
            raise CoordinationUnavailable(
                f"coordination store (Redis at {self.url}) is unavailable: {exc}"
            ) from exc

    def ping(self) -> bool:
        try:
            return bool(self._call(self._redis.ping))
        except CoordinationUnavailable:
            return False

    def get(self, key: str) -> dict[str, Any] | None:
        raw = self._call(self._redis.get, f"{self.prefix}kv:{key}")
        return json.loads(raw) if raw else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        self._call(
            self._redis.set,
            f"{self.prefix}kv:{key}",
            json.dumps(value, sort_keys=True, default=str),
        )

    def cache_put(self, key: str, value: dict[str, Any], ttl_s: float) -> None:
        """A value that disappears after ``ttl_s`` seconds."""
        self._call(
            self._redis.set,
            f"{self.prefix}cache:{key}",
            json.dumps(value, default=str),
            px=max(1, int(ttl_s * 1000)),
        )

    def cache_get(self, key: str) -> dict[str, Any] | None:
        raw = self._call(self._redis.get, f"{self.prefix}cache:{key}")
        return json.loads(raw) if raw else None

    def incr(self, key: str, by: int = 1) -> int:
        """A shared counter (e.g. sessions seen since the last dream)."""
        return int(self._call(self._redis.incrby, f"{self.prefix}count:{key}", by))

    def acquire(self, name: str, owner: str, ttl_s: float, *, now: float | None = None) -> bool:
        at = time.time() if now is None else now
        expires = at + ttl_s
        # Redis forgets the lease when it expires in real time (a crashed holder is gone)
        pexpire = max(1, int((expires - time.time()) * 1000))
        got = self._call(
            self._acquire,
            keys=[f"{self.prefix}lock:{name}"],
            args=[owner, repr(expires), repr(at), pexpire],
        )
        return bool(got)

    def release(self, name: str, owner: str) -> None:
        self._call(self._release, keys=[f"{self.prefix}lock:{name}"], args=[owner])

    def holder(self, name: str, *, now: float | None = None) -> Lease | None:
        at = time.time() if now is None else now
        found = self._call(self._redis.hgetall, f"{self.prefix}lock:{name}")
        if not found or float(found["expires_at"]) <= at:
            return None
        return Lease(name, found["owner"], float(found["expires_at"]))

    def close(self) -> None:
        self._redis.close()
