"""Request dependencies: the vault, the job queue, the caller's key and namespace."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Path, Query, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from api.auth import Principal
from api.schemas import Page
from api.security import Denied, admit
from memvault.capabilities.registry import scope_of
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
    client = request.client.host if request.client else "unknown"
    result = admit(request.app.state.keys, request.app.state.throttle, client, key)
    if isinstance(result, Denied):
        headers = (
            {"Retry-After": str(result.retry_after)}
            if result.retry_after
            else {"WWW-Authenticate": "Bearer"}
        )
        raise HTTPException(result.status, result.message, headers=headers)
    return result


def admin(p: Annotated[Principal, Depends(principal)]) -> Principal:
    if not p.admin:
        raise HTTPException(403, "this needs an admin key")
    return p


def namespace(
    request: Request,
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
    route = request.scope.get("route")
    needed = scope_of(request.method, getattr(route, "path", request.url.path))
    if not p.allows(needed):
        raise HTTPException(403, f"this key may only read: {request.method} needs a write key")
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
