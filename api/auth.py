"""API keys scoped to namespaces.

A key is ``mvk_<id>_<secret>``; the store keeps only its id, an HMAC-SHA256 of the whole key
under the server's secret, the namespaces it may touch and whether it is an admin key. The
bootstrap admin key comes from settings (``MEMVAULT_SERVER__ADMIN_KEY``). Keys live as
documents in the store's ``_memvault`` namespace (never listed, never a user namespace), so
auth keeps working when Redis is down.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memvault.capabilities.registry import Scope
from memvault.errors import InvalidInputError, NotFoundError
from memvault.kg.model import NAMESPACE_PATTERN
from memvault.kg.store import Batch, Doc, Store

SYSTEM_NS = "_memvault"
KEY = "api_key"


@dataclass(frozen=True)
class Principal:
    key_id: str
    name: str
    namespaces: frozenset[str]
    admin: bool
    scope: Scope = "write"  # read: recall and lists only (an agent that must not change memory)

    def may(self, namespace: str) -> bool:
        return self.admin or namespace in self.namespaces

    def allows(self, needed: Scope) -> bool:
        """Whether this key may run an operation of scope ``needed`` (the registry's)."""
        if needed == "admin":
            return self.admin
        return self.admin or needed == "read" or self.scope == "write"


class KeyStore:
    def __init__(self, store: Store, secret: str, admin_key: str | None):
        self.store, self._secret = store, secret.encode()
        self._admin_key = admin_key

    def _digest(self, key: str) -> str:
        return hmac.new(self._secret, key.encode(), hashlib.sha256).hexdigest()

    def fingerprint(self, key: str) -> str:
        """A short keyed digest of ``key``: how the throttle remembers keys that worked."""
        return self._digest(key)[:32]

    def authenticate(self, key: str) -> Principal | None:
        if self._admin_key and hmac.compare_digest(key.encode(), self._admin_key.encode()):
            return Principal("admin", "bootstrap admin", frozenset(), admin=True)
        parts = key.split("_")
        if len(parts) != 3 or parts[0] != "mvk":
            return None
        found = self.store.get_docs(SYSTEM_NS, KEY, [parts[1]])
        if not found or found[0].status != "active":
            return None
        body = found[0].body
        if not hmac.compare_digest(body["digest"], self._digest(key)):
            return None
        return Principal(
            found[0].id,
            body["name"],
            frozenset(body["namespaces"]),
            body["admin"],
            body.get("scope", "write"),  # keys made before scopes could write
        )

    def create(
        self,
        name: str,
        namespaces: list[str],
        *,
        admin: bool,
        now: datetime,
        scope: Scope = "write",
    ) -> tuple[str, dict[str, Any]]:
        """A new key: returns (the key, shown once; its public record)."""
        for ns in namespaces:
            if not re.fullmatch(NAMESPACE_PATTERN, ns):
                raise InvalidInputError(
                    f"{ns!r} is not a valid namespace",
                    field="namespaces",
                    hint="letters, digits and _.:@- ; up to 128 characters, not starting with _",
                )
        if not namespaces and not admin:
            raise InvalidInputError(
                "a key needs at least one namespace", field="namespaces", hint="or admin: true"
            )
        key_id = secrets.token_hex(6)
        key = f"mvk_{key_id}_{secrets.token_urlsafe(24).replace('_', '-')}"
        body = {
            "name": name,
            "namespaces": sorted(set(namespaces)),
            "admin": admin,
            "scope": "write" if admin else scope,
            "digest": self._digest(key),
            "created_at": now.isoformat(),
        }
        self.store.apply(
            Batch(SYSTEM_NS, docs=[Doc(KEY, key_id, body, status="active", created_at=now)])
        )
        return key, public(key_id, "active", body)

    def list(self, limit: int = 500) -> list[dict[str, Any]]:
        return [
            public(d.id, d.status, d.body)
            for d in self.store.list_docs(SYSTEM_NS, KEY, limit=limit)
        ]

    def revoke(self, key_id: str) -> dict[str, Any]:
        found = self.store.get_docs(SYSTEM_NS, KEY, [key_id])
        if not found:
            raise NotFoundError("api key", key_id)
        d = found[0]
        self.store.apply(
            Batch(
                SYSTEM_NS, docs=[Doc(KEY, d.id, d.body, status="revoked", created_at=d.created_at)]
            )
        )
        return public(d.id, "revoked", d.body)


def public(key_id: str, status: str | None, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": key_id,
        "name": body["name"],
        "namespaces": body["namespaces"],
        "admin": body["admin"],
        "scope": body.get("scope", "write"),
        "status": status,
        "created_at": body["created_at"],
    }
