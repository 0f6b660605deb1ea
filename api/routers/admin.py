"""Keys and namespaces (admin), and what a key may see of them."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request

from api.auth import KeyStore
from api.deps import Admin, Caller, Vault
from api.schemas import KeyIn

router = APIRouter(prefix="/v1", tags=["admin"])


def _keys(request: Request) -> KeyStore:
    return request.app.state.keys


@router.get("/namespaces")
def namespaces(caller: Caller, vault: Vault) -> dict[str, Any]:
    """The namespaces this key may touch (an admin key: all of them), with their counts."""
    names = vault.namespaces() if caller.admin else sorted(caller.namespaces)
    return {"namespaces": [vault.stats(namespace=n) for n in names]}


@router.post("/keys", status_code=201)
def create_key(body: KeyIn, _: Admin, vault: Vault, request: Request) -> dict[str, Any]:
    """A new key for some namespaces (or an admin key). The key is shown once, in ``key``;
    only its HMAC is stored."""
    key, record = _keys(request).create(
        body.name, body.namespaces, admin=body.admin, now=vault.now(), scope=body.scope
    )
    return {"key": key, **record}


@router.get("/keys")
def list_keys(_: Admin, request: Request) -> dict[str, Any]:
    return {"keys": _keys(request).list()}


@router.delete("/keys/{key_id}")
def revoke_key(
    _: Admin, request: Request, key_id: Annotated[str, Path(max_length=64)]
) -> dict[str, Any]:
    """Revoke a key: it stops working at once; the record stays."""
    return _keys(request).revoke(key_id)
