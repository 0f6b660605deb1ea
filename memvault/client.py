"""A Python client for memvault's REST API (server mode): the same method names and return
models as :class:`memvault.MemVault` for what the API offers, and the same errors.

    from memvault import Client
    with Client("http://127.0.0.1:8080", api_key="mvk_...", namespace="maya") as mv:
        mv.write("I moved to Lisbon last week.", speaker="Maya")
        hits = mv.recall("where does Maya live?")

Errors come back as the SDK raises them (``InvalidInputError`` with its field,
``NotFoundError``, ``ConflictError``, ...), with the server's message. A 503 (the coordination
store down, a restart) is retried with exponential backoff (``retries`` times); a lost
connection too, for reads; nothing else is retried. An API key is scoped to namespaces;
``namespace`` is the default of every call and each call may name another.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import httpx

from memvault.errors import (
    ConfigError,
    ConflictError,
    CoordinationUnavailable,
    InvalidBatchError,
    InvalidInputError,
    MemvaultError,
    NotFoundError,
    Problem,
)
from memvault.ingest.pipeline import WriteResult
from memvault.kg.model import Episode, Fact
from memvault.recall.results import Explanation, Hit, Recall


class AuthError(MemvaultError):
    """The server refused the key (401) or the key may not use the namespace (403)."""

    def __init__(self, message: str, status: int):
        self.status = status
        super().__init__(message)


def _error(response: httpx.Response) -> MemvaultError:
    try:
        body = response.json().get("error", {})
    except ValueError:
        body = {}
    message = str(body.get("message") or response.text or response.reason_phrase)
    kind = body.get("type")
    exc: MemvaultError
    if response.status_code in (401, 403):
        return AuthError(message, response.status_code)
    if kind == "invalid_input" and body.get("details") and "where" in body["details"][0]:
        exc = InvalidBatchError([Problem(d["where"], d["message"]) for d in body["details"]])
    elif kind == "invalid_input" or response.status_code == 422:
        exc = InvalidInputError("invalid", field=body.get("field"), hint=body.get("hint"))
    elif kind == "not_found" or response.status_code == 404:
        exc = NotFoundError.__new__(NotFoundError)
    elif kind == "conflict":
        exc = ConflictError()
    elif kind == "unavailable" or response.status_code == 503:
        exc = CoordinationUnavailable()
    elif kind == "config":
        exc = ConfigError.__new__(ConfigError)
    else:
        exc = MemvaultError()
    exc.args = (message,)  # the server's words, exactly
    return exc


def _ts(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


class Client:
    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        namespace: str | None = None,
        timeout: float = 30.0,
        retries: int = 3,
        backoff_s: float = 0.5,
        transport: httpx.BaseTransport | None = None,
    ):
        self.namespace = namespace
        self.retries, self.backoff_s = retries, backoff_s
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout,
            transport=transport,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing -------------------------------------------------------------------------------
    def _ns(self, namespace: str | None) -> str:
        ns = namespace or self.namespace
        if not ns:
            raise InvalidInputError("is missing", field="namespace", hint="Client(namespace=...)")
        return ns

    def _call(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        clean = {k: v for k, v in (params or {}).items() if v is not None}
        for attempt in range(self.retries + 1):
            try:
                response = self._http.request(method, path, json=json, params=clean)
            except httpx.TransportError:
                if method != "GET" or attempt == self.retries:
                    raise
                time.sleep(self.backoff_s * 2**attempt)
                continue
            if response.status_code == 503 and attempt < self.retries:
                time.sleep(self.backoff_s * 2**attempt)
                continue
            if response.status_code >= 400:
                raise _error(response)
            return response.json() if response.content else None
        raise AssertionError("unreachable")

    def _ns_path(self, namespace: str | None, tail: str) -> str:
        return f"/v1/ns/{self._ns(namespace)}{tail}"

    def _pages(self, path: str, params: Mapping[str, Any], limit: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        offset: int | None = 0
        while offset is not None and len(out) < limit:
            page = self._call(
                "GET",
                path,
                params={**params, "limit": min(limit - len(out), 500), "offset": offset},
            )
            out += page["items"]
            offset = page["next_offset"]
        return out

    # -- writing ----------------------------------------------------------------------------------
    def write(self, content: str, *, namespace: str | None = None, **fields: Any) -> Episode:
        result = self.write_many([{"content": content, **fields}], namespace=namespace)
        return self.get_episode(result.episode_ids[0], namespace=namespace)

    def write_many(
        self, items: Sequence[Mapping[str, Any]], *, namespace: str | None = None
    ) -> WriteResult:
        body = {"items": [_jsonable(i) for i in items]}
        data = self._call("POST", self._ns_path(namespace, "/episodes"), json=body)
        known = set(WriteResult.__dataclass_fields__)
        return WriteResult(**{k: v for k, v in data.items() if k in known})

    def add_facts(
        self, items: Sequence[Mapping[str, Any]], *, namespace: str | None = None
    ) -> list[Fact]:
        body = {"items": [_jsonable(i) for i in items]}
        done = self._call("POST", self._ns_path(namespace, "/facts"), json=body)
        wanted = set(done["fact_ids"])
        found = self.facts(namespace=namespace, include_history=True, limit=100_000)
        return [f for f in found if f.id in wanted]

    def add_fact(self, subject: str, predicate: str, obj: str, **fields: Any) -> Fact:
        namespace = fields.pop("namespace", None)
        item = {"subject": subject, "predicate": predicate, "object": obj, **fields}
        return self.add_facts([item], namespace=namespace)[0]

    # -- reading ----------------------------------------------------------------------------------
    def recall(
        self,
        query: str,
        *,
        namespace: str | None = None,
        k: int | None = None,
        as_of: datetime | None = None,
        persona: bool = False,
        session_id: str | None = None,
    ) -> Recall:
        body = {"query": query, "explain": True, "persona": persona, "as_of": _ts(as_of)}
        if k is not None:
            body["k"] = k
        if session_id is not None:
            body["session_id"] = session_id
        out = self._call("POST", self._ns_path(namespace, "/recall"), json=body)
        result = Recall(
            Hit(
                kind=h["kind"],
                id=h["id"],
                text=h["text"],
                score=h["score"],
                source_episode_ids=h["source_episode_ids"],
                tier=h.get("tier"),
                digest=h.get("digest"),
                explanation=Explanation.model_validate(h["explanation"]),
            )
            for h in out["hits"]
        )
        result.recall_id, result.hint = out.get("recall_id"), out.get("hint")
        result.prefetched = bool(out.get("prefetched"))
        return result

    def verdict(
        self,
        recall_id: str,
        verdict: str,
        *,
        hit_id: str | None = None,
        namespace: str | None = None,
    ) -> dict[str, Any]:
        body = {"recall_id": recall_id, "verdict": verdict, "hit_id": hit_id}
        result: dict[str, Any] = self._call(
            "POST", self._ns_path(namespace, "/verdicts"), json=body
        )
        return result

    def gaps(self, *, namespace: str | None = None) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._call("GET", self._ns_path(namespace, "/gaps"))
        return result

    def get_episode(self, episode_id: str, *, namespace: str | None = None) -> Episode:
        return Episode.model_validate(
            self._call("GET", self._ns_path(namespace, f"/episodes/{episode_id}"))
        )

    def episodes(
        self, *, namespace: str | None = None, session_id: str | None = None, limit: int = 100
    ) -> list[Episode]:
        rows = self._pages(self._ns_path(namespace, "/episodes"), {"session_id": session_id}, limit)
        return [Episode.model_validate(r) for r in rows]

    def facts(
        self,
        *,
        namespace: str | None = None,
        subject: str | None = None,
        predicate: str | None = None,
        as_of: datetime | None = None,
        include_history: bool = False,
        limit: int = 1000,
    ) -> list[Fact]:
        params = {
            "subject": subject,
            "predicate": predicate,
            "as_of": _ts(as_of),
            "include_history": include_history or None,
        }
        rows = self._pages(self._ns_path(namespace, "/facts"), params, limit)
        return [Fact.model_validate(r) for r in rows]

    def stats(self, *, namespace: str | None = None) -> dict[str, Any]:
        result: dict[str, Any] = self._call("GET", self._ns_path(namespace, "/stats"))
        return result

    # -- feedback ---------------------------------------------------------------------------------
    def judge(self, ids: Iterable[str], signal: str, *, namespace: str | None = None) -> list[str]:
        wanted = list(dict.fromkeys(ids))
        self._call(
            "POST", self._ns_path(namespace, "/feedback"), json={"ids": wanted, "signal": signal}
        )
        return wanted  # every id exists, or the server refused them all (404)

    def record_access(self, ids: Iterable[str], *, namespace: str | None = None) -> int:
        return len(self.judge(ids, "access", namespace=namespace))

    def reinforce(self, ids: Iterable[str], *, namespace: str | None = None) -> int:
        return len(self.judge(ids, "reinforce", namespace=namespace))

    # -- the background ---------------------------------------------------------------------------
    def dream(
        self, *, namespace: str | None = None, apply: bool = False, force: bool = False
    ) -> dict[str, Any]:
        """A dry run's plan at once; ``apply`` queues a job (poll :meth:`dream_job`)."""
        result: dict[str, Any] = self._call(
            "POST", self._ns_path(namespace, "/dream"), json={"apply": apply, "force": force}
        )
        return result

    def dream_job(self, job_id: str, *, namespace: str | None = None) -> dict[str, Any]:
        result: dict[str, Any] = self._call(
            "GET", self._ns_path(namespace, f"/dream/jobs/{job_id}")
        )
        return result

    def dream_runs(self, *, namespace: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        return self._pages(self._ns_path(namespace, "/dream/runs"), {}, limit)

    def undo_dream(self, run_id: str, *, namespace: str | None = None, force: bool = False) -> int:
        out = self._call(
            "POST", self._ns_path(namespace, f"/dream/runs/{run_id}/undo"), json={"force": force}
        )
        return int(out["restored"])

    def review_items(
        self, *, namespace: str | None = None, status: str = "pending", limit: int = 100
    ) -> list[dict[str, Any]]:
        return self._pages(self._ns_path(namespace, "/review"), {"status": status}, limit)

    def approve(self, review_id: str, *, namespace: str | None = None) -> int:
        out = self._call("POST", self._ns_path(namespace, f"/review/{review_id}/approve"))
        return int(out.get("applied", 0))

    def reject(self, review_id: str, *, namespace: str | None = None, note: str = "") -> None:
        self._call(
            "POST", self._ns_path(namespace, f"/review/{review_id}/reject"), json={"note": note}
        )

    def inbox(
        self, *, namespace: str | None = None, status: str = "unseen", limit: int = 100
    ) -> list[dict[str, Any]]:
        return self._pages(self._ns_path(namespace, "/inbox"), {"status": status}, limit)

    def primer(
        self, *, namespace: str | None = None, budget_tokens: int | None = None
    ) -> dict[str, Any]:
        result: dict[str, Any] = self._call(
            "GET", self._ns_path(namespace, "/primer"), params={"budget": budget_tokens}
        )
        return result

    def attitudes(
        self,
        *,
        namespace: str | None = None,
        category: str | None = None,
        as_of: datetime | None = None,
        history: bool = False,
    ) -> list[dict[str, Any]]:
        params = {"category": category, "as_of": _ts(as_of), "history": history or None}
        result: list[dict[str, Any]] = self._call(
            "GET", self._ns_path(namespace, "/persona/attitudes"), params=params
        )
        return result

    def skills(self, *, namespace: str | None = None) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._call(
            "GET", self._ns_path(namespace, "/persona/skills")
        )
        return result


def _jsonable(item: Mapping[str, Any] | Any) -> dict[str, Any]:
    data = (
        item.model_dump(mode="json", exclude_none=True)
        if hasattr(item, "model_dump")
        else dict(item)
    )
    return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in data.items()}
