"""What serving over HTTP needs: secrets strong enough to be worth checking, and a brake on
guessing keys.

- **Secrets.** ``MEMVAULT_SECRET_KEY`` (the HMAC key every API key is stored under) and the
  bootstrap admin key must each be at least 32 characters with an estimated 128 bits or more
  of entropy, must not be a known default, and must differ from each other. Any way of
  serving the API (``memvault serve``, ``uvicorn api.main:build --factory``, tests) builds
  the app through :func:`api.app.create_app`, which refuses weak secrets whatever the mode.
- **Throttle.** A client (its address) that fails authentication ``max_failures`` times
  within ``window_s`` is answered 429 with ``Retry-After`` for ``block_s``, before its key is
  even checked, so guessing stops. Keys that already authenticated from that client keep
  working during the block, so an agent sharing an address with a guesser is not locked
  out. The counts live in this process (``memvault serve``) or in Redis when the server has
  one (every API replica sees the same counts); with Redis down the process's own counts are
  used.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memvault.config import DEFAULT_SECRET, Settings
from memvault.errors import ConfigError, StoreError

if TYPE_CHECKING:
    from api.auth import KeyStore, Principal

MIN_CHARS = 32
MIN_BITS = 128
GENERATE = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
_KNOWN_DEFAULTS = {DEFAULT_SECRET, "changeme", "secret", "admin", "password"}


def estimated_bits(value: str) -> float:
    """Length × the empirical entropy per character: a repeated or short pattern scores low
    (it is an estimate, not a proof of randomness)."""
    if not value:
        return 0.0
    counts = Counter(value)
    n = len(value)
    return n * -sum(c / n * math.log2(c / n) for c in counts.values())


def secret_problem(value: str | None) -> str | None:
    if not value:
        return "is empty"
    if value.lower() in _KNOWN_DEFAULTS:
        return "is a well-known default"
    if len(value) < MIN_CHARS:
        return f"is {len(value)} characters; needs at least {MIN_CHARS}"
    if estimated_bits(value) < MIN_BITS:
        return f"looks predictable (about {estimated_bits(value):.0f} bits; needs {MIN_BITS})"
    return None


def require_strong_secrets(settings: Settings, *, admin_key_required: bool = True) -> None:
    """Refuse to serve with a default, empty, short or shared secret; every problem at once.
    Every network surface calls it (the REST API and console, ``memvault mcp --http``); a
    surface that works without the bootstrap admin key still refuses a weak one."""
    problems = []
    for name, value in (
        ("MEMVAULT_SECRET_KEY", settings.secret_key),
        ("MEMVAULT_SERVER__ADMIN_KEY", settings.server.admin_key),
    ):
        if name.endswith("ADMIN_KEY") and not value and not admin_key_required:
            continue
        problem = secret_problem(value)
        if problem:
            problems.append(f"{name} {problem}")
    if settings.server.admin_key and settings.server.admin_key == settings.secret_key:
        problems.append("MEMVAULT_SERVER__ADMIN_KEY must differ from MEMVAULT_SECRET_KEY")
    if problems:
        raise ConfigError(
            "refusing to serve over HTTP: "
            + "; ".join(problems)
            + f". Generate each with: {GENERATE}",
            setting="secret_key" if "SECRET_KEY " in problems[0] else "server.admin_key",
        )


@dataclass
class _Memory:
    """Failure times, blocks and trusted keys per client, in this process."""

    failures: dict[str, deque[float]] = field(default_factory=dict)
    blocked_until: dict[str, float] = field(default_factory=dict)
    trusted: dict[str, set[str]] = field(default_factory=dict)


class AuthThrottle:
    def __init__(
        self,
        *,
        max_failures: int = 10,
        window_s: float = 60.0,
        block_s: float = 60.0,
        shared: Any = None,
    ):
        """``shared``: a coordination store with ``cache_get`` / ``cache_put`` (Redis)."""
        self.max_failures, self.window_s, self.block_s = max_failures, window_s, block_s
        self.shared = shared if hasattr(shared, "cache_get") else None
        self.mem = _Memory()

    # -- shared state, with the process's own as the fallback ---------------------------------
    def _get(self, key: str) -> dict[str, Any] | None:
        if self.shared is not None:
            try:
                found: dict[str, Any] | None = self.shared.cache_get(f"auth:{key}")
                return found
            except StoreError:
                pass
        return None

    def _put(self, key: str, value: dict[str, Any], ttl_s: float) -> None:
        if self.shared is not None:
            with contextlib.suppress(StoreError):
                self.shared.cache_put(f"auth:{key}", value, ttl_s)

    # -- the three questions -----------------------------------------------------------------
    def retry_after(self, client: str, fingerprint: str, now: float | None = None) -> float:
        """Seconds this client must wait before its key is checked (0: go ahead)."""
        now = time.time() if now is None else now
        until = self.mem.blocked_until.get(client, 0.0)
        shared = self._get(f"block:{client}")
        if shared:
            until = max(until, float(shared["until"]))
        if until <= now or self.is_trusted(client, fingerprint):
            return 0.0
        return until - now

    def failed(self, client: str, now: float | None = None) -> None:
        now = time.time() if now is None else now
        times = self.mem.failures.setdefault(client, deque())
        times.append(now)
        while times and times[0] < now - self.window_s:
            times.popleft()
        count = len(times)
        shared = self._get(f"fail:{client}")
        if shared is not None or self.shared is not None:
            since = float(shared["since"]) if shared else now
            total = int(shared["count"]) + 1 if shared and since >= now - self.window_s else 1
            self._put(f"fail:{client}", {"count": total, "since": since}, self.window_s)
            count = max(count, total)
        if count >= self.max_failures:
            until = now + self.block_s
            self.mem.blocked_until[client] = until
            self._put(f"block:{client}", {"until": until}, self.block_s)

    def succeeded(self, client: str, fingerprint: str) -> None:
        known = self.mem.trusted.setdefault(client, set())
        if len(known) < 64:
            known.add(fingerprint)
        self._put(f"ok:{client}:{fingerprint}", {"ok": True}, 86_400)

    def is_trusted(self, client: str, fingerprint: str) -> bool:
        if fingerprint in self.mem.trusted.get(client, ()):
            return True
        return self._get(f"ok:{client}:{fingerprint}") is not None


@dataclass(frozen=True)
class Denied:
    """Why a request's key was not accepted: 401 (none or unknown) or 429 (throttled)."""

    status: int
    message: str
    retry_after: int | None = None


def admit(
    keys: KeyStore, throttle: AuthThrottle, client: str, key: str | None
) -> Principal | Denied:
    """The one check every door makes (REST, console login, MCP over HTTP): a throttled
    client waits before its key is even looked at, a wrong key counts against its address, a
    key that worked is remembered so its owner is not locked out with a guesser."""
    if not key:
        return Denied(401, "no API key: send Authorization: Bearer <key> or X-API-Key: <key>")
    fingerprint = keys.fingerprint(key)
    wait = throttle.retry_after(client, fingerprint)
    if wait > 0:
        seconds = math.ceil(wait)
        return Denied(
            429, f"too many failed authentications from this address; retry in {seconds} s", seconds
        )
    found = keys.authenticate(key)
    if found is None:
        throttle.failed(client)
        return Denied(401, "unknown or revoked API key")
    throttle.succeeded(client, fingerprint)
    return found


def throttle_for(settings: Settings, shared: Any) -> AuthThrottle:
    s = settings.server
    return AuthThrottle(
        max_failures=s.auth_max_failures,
        window_s=s.auth_window_s,
        block_s=s.auth_block_s,
        shared=shared,
    )
