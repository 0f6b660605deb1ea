"""The coordination port."""

from __future__ import annotations

import os
import socket
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from memvault.errors import ConflictError


@dataclass(frozen=True)
class Lease:
    name: str
    owner: str
    expires_at: float  # epoch seconds, wall clock


class Coordination(ABC):
    """Shared JSON values by key, and locks that expire so a crashed holder never blocks
    forever. Lock times are wall-clock seconds (processes die in real time, not vault time)."""

    @abstractmethod
    def get(self, key: str) -> dict[str, Any] | None: ...

    @abstractmethod
    def put(self, key: str, value: dict[str, Any]) -> None: ...

    @abstractmethod
    def acquire(self, name: str, owner: str, ttl_s: float, *, now: float | None = None) -> bool:
        """Take the lock if it is free or its holder's lease has expired."""

    @abstractmethod
    def release(self, name: str, owner: str) -> None:
        """Give the lock back (only its owner can)."""

    @abstractmethod
    def holder(self, name: str, *, now: float | None = None) -> Lease | None: ...

    @abstractmethod
    def close(self) -> None: ...

    @contextmanager
    def locked(self, name: str, owner: str, ttl_s: float) -> Iterator[None]:
        """Hold ``name`` for the block. Owners are ``host:pid:token``; a lease held by a
        process of this host that no longer exists is taken over at once instead of
        waiting for it to expire."""
        if not self.acquire(name, owner, ttl_s):
            lease = self.holder(name)
            if lease is not None and _dead_here(lease.owner):
                self.release(name, lease.owner)
        if not self.acquire(name, owner, ttl_s):
            lease = self.holder(name)
            left = f"; it expires in {lease.expires_at - time.time():.0f}s" if lease else ""
            raise ConflictError(f"{name} is held by {lease.owner if lease else 'another'}{left}")
        try:
            yield
        finally:
            self.release(name, owner)


def owner_id() -> str:
    """``host:pid:token`` for a lock owner."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _dead_here(owner: str) -> bool:
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
