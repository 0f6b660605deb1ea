"""Small SQL helpers shared by the SQLite adapter's reads and writes."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence

# SQLite allows 32766 host parameters; stay well below for IN (...) lists.
CHUNK = 900


def chunks(items: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), CHUNK):
        yield items[start : start + CHUNK]


def marks(n: int) -> str:
    return ",".join("?" * n)


def ns_token(namespace: str) -> str:
    """One alphanumeric token naming a namespace inside the FTS index."""
    return "n" + hashlib.blake2b(namespace.encode(), digest_size=8).hexdigest()
