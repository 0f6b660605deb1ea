"""What every REST client operation shares: the call it yields (:class:`Call`), the client's
default namespace (:class:`Base`), and the JSON helpers."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from memvault.errors import InvalidInputError

R = TypeVar("R")
Op = Generator["Call", Any, R]


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    json: Any = None
    params: Mapping[str, Any] | None = None
    text: bool = False  # the answer is text (Prometheus metrics), not JSON
    content: bytes | None = None  # a body sent as it is (a chat export), in place of ``json``


class Base:
    """What every operation reads of its client: the default namespace."""

    namespace: str | None

    def _ns(self, namespace: str | None) -> str:
        ns = namespace or self.namespace
        if not ns:
            raise InvalidInputError("is missing", field="namespace", hint="Client(namespace=...)")
        return ns

    def _path(self, namespace: str | None, tail: str) -> str:
        return f"/v1/ns/{self._ns(namespace)}{tail}"


def ts(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def jsonable(item: Mapping[str, Any] | Any) -> dict[str, Any]:
    data = (
        item.model_dump(mode="json", exclude_none=True)
        if hasattr(item, "model_dump")
        else dict(item)
    )
    return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in data.items()}


def pages(path: str, params: Mapping[str, Any], limit: int) -> Op[list[dict[str, Any]]]:
    out: list[dict[str, Any]] = []
    offset: int | None = 0
    while offset is not None and len(out) < limit:
        page = yield Call(
            "GET", path, params={**params, "limit": min(limit - len(out), 500), "offset": offset}
        )
        out += page["items"]
        offset = page["next_offset"]
    return out
