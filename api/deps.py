"""Request dependencies: the vault, the job queue, the caller's key and namespace."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Path, Query, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from api.auth import KeyStore, Principal
from api.schemas import Page
from api.security import AuthThrottle
from memvault.jobs import JobQueue
from memvault.kg.model import NAMESPACE_PATTERN
from memvault.vault import MemVault

_bearer = HTTPBearer(auto_error=False, description="Authorization: Bearer <API key>")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="or X-API-Key: <key>")


def vault(request: Request) -> MemVault:
    return request.app.state.vault


def jobs(request: Request) -> JobQueue:
    return request.app.state.jobs


def principal(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    header: Annotated[str | None, Depends(_header)],
) -> Principal:
    key = bearer.credentials if bearer else header
    if not key:
        raise HTTPException(
            401,
            "no API key: send Authorization: Bearer <key> or X-API-Key: <key>",
            headers={"WWW-Authenticate": "Bearer"},
        )
    keys: KeyStore = request.app.state.keys
    throttle: AuthThrottle = request.app.state.throttle
    client = request.client.host if request.client else "unknown"
    fingerprint = keys.fingerprint(key)
    wait = throttle.retry_after(client, fingerprint)
    if wait > 0:
        raise HTTPException(
            429,
            f"too many failed authentications from this address; retry in {math.ceil(wait)} s",
            headers={"Retry-After": str(math.ceil(wait))},
        )
    found = keys.authenticate(key)
    if found is None:
        throttle.failed(client)
        raise HTTPException(
            401, "unknown or revoked API key", headers={"WWW-Authenticate": "Bearer"}
        )
    throttle.succeeded(client, fingerprint)
    return found


def admin(p: Annotated[Principal, Depends(principal)]) -> Principal:
    if not p.admin:
        raise HTTPException(403, "this needs an admin key")
    return p


def namespace(
    p: Annotated[Principal, Depends(principal)],
    ns: Annotated[
        str,
        Path(
            alias="namespace",
            pattern=NAMESPACE_PATTERN,
            description="The namespace (a user or an agent) the key may touch.",
        ),
    ],
) -> str:
    if not p.may(ns):
        # the same answer whether or not it exists: a key learns nothing of others
        raise HTTPException(404, f"no namespace {ns!r} for this key")
    return ns


Vault = Annotated[MemVault, Depends(vault)]
Jobs = Annotated[JobQueue, Depends(jobs)]
Namespace = Annotated[str, Depends(namespace)]
Admin = Annotated[Principal, Depends(admin)]
Caller = Annotated[Principal, Depends(principal)]
Limit = Annotated[int, Query(ge=1, le=500, description="Items per page.")]
Offset = Annotated[int, Query(ge=0, le=1_000_000, description="Items to skip.")]


def paged(fetch: Callable[[int, int], Sequence[Any]], limit: int, offset: int) -> Page:
    """A page from ``fetch(n, skip)`` (up to ``n`` items after the first ``skip``): one item
    past the page says there is a next one. Records become their JSON."""
    rows = fetch(limit + 1, offset)
    items = [r.model_dump(mode="json") if hasattr(r, "model_dump") else r for r in rows]
    return Page(
        items=items[:limit],
        limit=limit,
        offset=offset,
        next_offset=offset + limit if len(items) > limit else None,
    )


def first(fetch: Callable[[int], Sequence[Any]]) -> Callable[[int, int], Sequence[Any]]:
    """Adapt a source that can only return its first ``n`` items (no offset of its own)."""
    return lambda n, skip: list(fetch(n + skip))[skip:]
