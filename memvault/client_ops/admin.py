"""The REST clients' operations across namespaces (an admin key's): the namespaces a key
may touch, API keys, and the server's metrics."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from memvault.client_ops.base import Base, Call, Op


def namespaces(c: Base, /) -> Op[list[str]]:
    """The namespaces this key may touch (an admin key: all of them)."""
    found = yield Call("GET", "/v1/namespaces")
    return [n["namespace"] for n in found["namespaces"]]


def list_keys(c: Base, /) -> Op[list[dict[str, Any]]]:
    return list((yield Call("GET", "/v1/keys"))["keys"])


def create_key(
    c: Base,
    /,
    name: str,
    namespaces: Sequence[str] = (),
    *,
    admin: bool = False,
    scope: Literal["read", "write"] = "write",
) -> Op[dict[str, Any]]:
    """A new key (shown once, in ``key``; the server stores only its HMAC)."""
    body = {"name": name, "namespaces": list(namespaces), "admin": admin, "scope": scope}
    return dict((yield Call("POST", "/v1/keys", json=body)))


def revoke_key(c: Base, /, key_id: str) -> Op[dict[str, Any]]:
    return dict((yield Call("DELETE", f"/v1/keys/{key_id}")))


def metrics(c: Base, /) -> Op[str]:
    """The server's metrics in Prometheus text format."""
    return str((yield Call("GET", "/metrics", text=True)))
