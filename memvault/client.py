"""Python clients for memvault's REST API (server mode), blocking and async: the same method
names and return models as :class:`memvault.MemVault` for what the API offers, and the same
errors. Each operation is written once in :mod:`memvault.client_ops`; the two clients only
run it.

    from memvault import Client
    with Client("http://127.0.0.1:8080", api_key="mvk_...", namespace="maya") as mv:
        mv.write("I moved to Lisbon last week.", speaker="Maya")
        hits = mv.recall("where does Maya live?")

    from memvault import AsyncClient
    async with AsyncClient("http://127.0.0.1:8080", api_key="mvk_...", namespace="maya") as mv:
        hits = await mv.recall("where does Maya live?")

Errors come back as the SDK raises them (``InvalidInputError`` with its field,
``NotFoundError``, ``ConflictError``, ...), with the server's message. A 503 (the coordination
store down, a restart) is retried with exponential backoff (``retries`` times); a lost
connection too, for reads; nothing else is retried. An API key is scoped to namespaces;
``namespace`` is the default of every call and each call may name another.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

import httpx

from memvault import client_ops as ops
from memvault.client_ops import Base, Call, Op
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


P = ParamSpec("P")
R = TypeVar("R")


def _wait(response: httpx.Response | None, call: Call, attempt: int, retries: int) -> bool:
    """Whether to try ``call`` again: a 503 (a restart, the coordination store down) or, for a
    read, a lost connection (``response`` None), while attempts remain."""
    if attempt >= retries:
        return False
    return response.status_code == 503 if response is not None else call.method == "GET"


def _answer(response: httpx.Response, call: Call) -> Any:
    if response.status_code >= 400:
        raise _error(response)
    if call.text:
        return response.text
    return response.json() if response.content else None


def _body(call: Call) -> dict[str, Any]:
    return {"content": call.content} if call.content is not None else {"json": call.json}


def _params(call: Call) -> dict[str, Any]:
    return {k: v for k, v in (call.params or {}).items() if v is not None}


def blocking(op: Callable[Concatenate[Base, P], Op[R]]) -> Callable[Concatenate[Client, P], R]:
    def run(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> R:
        gen = op(self, *args, **kwargs)
        try:
            call = next(gen)
            while True:
                call = gen.send(self._send(call))
        except StopIteration as done:
            return done.value

    run.__name__, run.__doc__ = op.__name__, op.__doc__
    return run


def awaiting(
    op: Callable[Concatenate[Base, P], Op[R]],
) -> Callable[Concatenate[AsyncClient, P], Awaitable[R]]:
    async def run(self: AsyncClient, /, *args: P.args, **kwargs: P.kwargs) -> R:
        gen = op(self, *args, **kwargs)
        try:
            call = next(gen)
            while True:
                call = gen.send(await self._send(call))
        except StopIteration as done:
            return done.value

    run.__name__, run.__doc__ = op.__name__, op.__doc__
    return run


class _Remote(Base):
    """What both clients share: the connection settings and the retry policy."""

    _client: Any  # httpx.Client or httpx.AsyncClient

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        namespace: str | None = None,
        timeout: float = 30.0,
        retries: int = 3,
        backoff_s: float = 0.5,
        transport: Any = None,
    ):
        """``transport``: an httpx (async) transport, e.g. for tests."""
        self.namespace = namespace
        self.retries, self.backoff_s = retries, backoff_s
        self._http = self._client(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout,
            transport=transport,
        )

    def _delay(self, call: Call, response: httpx.Response | None, attempt: int) -> float | None:
        """Seconds to wait before sending ``call`` again, or None: answer (or raise) now."""
        if not _wait(response, call, attempt, self.retries):
            return None
        return self.backoff_s * 2**attempt


class Client(_Remote):
    """The blocking client. A 503 is retried with exponential backoff (``retries`` times);
    a lost connection too, for reads; nothing else is retried."""

    _client = httpx.Client
    _http: httpx.Client

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _send(self, call: Call) -> Any:
        for attempt in itertools.count():
            try:
                response = self._http.request(
                    call.method, call.path, params=_params(call), **_body(call)
                )
            except httpx.TransportError:
                if (delay := self._delay(call, None, attempt)) is None:
                    raise
            else:
                if (delay := self._delay(call, response, attempt)) is None:
                    return _answer(response, call)
            time.sleep(delay)

    write = blocking(ops.write)
    write_many = blocking(ops.write_many)
    import_chat_export = blocking(ops.import_chat_export)
    add_facts = blocking(ops.add_facts)
    add_fact = blocking(ops.add_fact)
    recall = blocking(ops.recall)
    verdict = blocking(ops.verdict)
    gaps = blocking(ops.gaps)
    get_episode = blocking(ops.get_episode)
    episodes = blocking(ops.episodes)
    facts = blocking(ops.facts)
    stats = blocking(ops.stats)
    judge = blocking(ops.judge)
    record_access = blocking(ops.record_access)
    reinforce = blocking(ops.reinforce)
    forget = blocking(ops.forget)
    forget_subject = blocking(ops.forget_subject)
    correct = blocking(ops.correct)
    dream = blocking(ops.dream)
    dream_job = blocking(ops.dream_job)
    dream_runs = blocking(ops.dream_runs)
    undo_dream = blocking(ops.undo_dream)
    review_items = blocking(ops.review_items)
    approve = blocking(ops.approve)
    reject = blocking(ops.reject)
    decide_reviews = blocking(ops.decide_reviews)
    inbox = blocking(ops.inbox)
    primer = blocking(ops.primer)
    attitudes = blocking(ops.attitudes)
    skills = blocking(ops.skills)
    entity_types = blocking(ops.entity_types)
    define_entity_type = blocking(ops.define_entity_type)
    remove_entity_type = blocking(ops.remove_entity_type)
    write_session = blocking(ops.write_session)
    profile = blocking(ops.profile)
    diary = blocking(ops.diary)
    dream_report = blocking(ops.dream_report)
    mark_seen = blocking(ops.mark_seen)
    mark_dismissed = blocking(ops.mark_dismissed)
    fold = blocking(ops.fold)
    tiers = blocking(ops.tiers)
    janitor = blocking(ops.janitor)
    lint = blocking(ops.lint)
    catch_up = blocking(ops.catch_up)
    upsert_attitude = blocking(ops.upsert_attitude)
    record_skill_use = blocking(ops.record_skill_use)
    namespaces = blocking(ops.namespaces)
    list_keys = blocking(ops.list_keys)
    create_key = blocking(ops.create_key)
    revoke_key = blocking(ops.revoke_key)
    metrics = blocking(ops.metrics)


class AsyncClient(_Remote):
    """The async client: the same operations, awaited (``async with``); the same retries,
    waiting with ``asyncio.sleep``."""

    _client = httpx.AsyncClient
    _http: httpx.AsyncClient

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _send(self, call: Call) -> Any:
        for attempt in itertools.count():
            try:
                response = await self._http.request(
                    call.method, call.path, params=_params(call), **_body(call)
                )
            except httpx.TransportError:
                if (delay := self._delay(call, None, attempt)) is None:
                    raise
            else:
                if (delay := self._delay(call, response, attempt)) is None:
                    return _answer(response, call)
            await asyncio.sleep(delay)

    write = awaiting(ops.write)
    write_many = awaiting(ops.write_many)
    import_chat_export = awaiting(ops.import_chat_export)
    add_facts = awaiting(ops.add_facts)
    add_fact = awaiting(ops.add_fact)
    recall = awaiting(ops.recall)
    verdict = awaiting(ops.verdict)
    gaps = awaiting(ops.gaps)
    get_episode = awaiting(ops.get_episode)
    episodes = awaiting(ops.episodes)
    facts = awaiting(ops.facts)
    stats = awaiting(ops.stats)
    judge = awaiting(ops.judge)
    record_access = awaiting(ops.record_access)
    reinforce = awaiting(ops.reinforce)
    forget = awaiting(ops.forget)
    forget_subject = awaiting(ops.forget_subject)
    correct = awaiting(ops.correct)
    dream = awaiting(ops.dream)
    dream_job = awaiting(ops.dream_job)
    dream_runs = awaiting(ops.dream_runs)
    undo_dream = awaiting(ops.undo_dream)
    review_items = awaiting(ops.review_items)
    approve = awaiting(ops.approve)
    reject = awaiting(ops.reject)
    decide_reviews = awaiting(ops.decide_reviews)
    inbox = awaiting(ops.inbox)
    primer = awaiting(ops.primer)
    attitudes = awaiting(ops.attitudes)
    skills = awaiting(ops.skills)
    entity_types = awaiting(ops.entity_types)
    define_entity_type = awaiting(ops.define_entity_type)
    remove_entity_type = awaiting(ops.remove_entity_type)
    write_session = awaiting(ops.write_session)
    profile = awaiting(ops.profile)
    diary = awaiting(ops.diary)
    dream_report = awaiting(ops.dream_report)
    mark_seen = awaiting(ops.mark_seen)
    mark_dismissed = awaiting(ops.mark_dismissed)
    fold = awaiting(ops.fold)
    tiers = awaiting(ops.tiers)
    janitor = awaiting(ops.janitor)
    lint = awaiting(ops.lint)
    catch_up = awaiting(ops.catch_up)
    upsert_attitude = awaiting(ops.upsert_attitude)
    record_skill_use = awaiting(ops.record_skill_use)
    namespaces = awaiting(ops.namespaces)
    list_keys = awaiting(ops.list_keys)
    create_key = awaiting(ops.create_key)
    revoke_key = awaiting(ops.revoke_key)
    metrics = awaiting(ops.metrics)
