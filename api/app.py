"""The FastAPI app: routers, errors as JSON that say what to fix, a request size limit,
health. ``create_app`` takes a vault and a job queue, so the same app serves the embedded
default (``memvault serve``: SQLite, in-process jobs) and server mode (Redis, Celery)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi_offline import FastAPIOffline
from prometheus_client import CONTENT_TYPE_LATEST
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api import console, console_memory, unknown_fields
from api.auth import KeyStore
from api.deps import admin
from api.metrics import Metrics, MetricsMiddleware
from api.routers import admin as admin_routes
from api.routers import dream, forget, imports, memory, persona, types
from api.schemas import ErrorResponse
from api.security import require_strong_secrets, throttle_for
from memvault.coord.redis import CoordinationUnavailable
from memvault.errors import (
    ConfigError,
    ConflictError,
    InvalidBatchError,
    InvalidInputError,
    MemvaultError,
    NotFoundError,
)
from memvault.jobs import JobQueue
from memvault.logs import configure as configure_logs
from memvault.vault import MemVault

log = logging.getLogger(__name__)
_STATUS_TYPE = {
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    429: "too_many_requests",
}


def _error(status: int, type_: str, message: str, **extra: Any) -> JSONResponse:
    body = {"type": type_, "message": message, **{k: v for k, v in extra.items() if v}}
    return JSONResponse({"error": body}, status_code=status)


class BodyLimit:
    """413 for a body over ``limit`` bytes, by its Content-Length or, for a streamed
    (chunked) body, as it arrives: the body is read here, up to the limit, before the app
    sees it, so the app's own body parsing never turns the refusal into a 400."""

    def __init__(self, app: ASGIApp, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.limit:
            await self._too_large(scope, receive, send)
            return
        buffered: list[Message] = []
        seen = 0
        while True:
            message = await receive()
            buffered.append(message)
            if message["type"] != "http.request":
                break  # the client went away
            seen += len(message.get("body", b""))
            if seen > self.limit:
                await self._too_large(scope, receive, send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return buffered.pop(0) if buffered else await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = _error(
            413,
            "too_large",
            f"the request body is over {self.limit} bytes",
            hint="send fewer items per request (server__max_body_bytes)",
        )
        await response(scope, receive, send)


def create_app(vault: MemVault, jobs: JobQueue) -> FastAPI:
    """The API over ``vault``. Refuses (ConfigError) weak secrets: see :mod:`api.security`."""
    settings = vault.settings
    require_strong_secrets(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        jobs.close()

    # /docs and /redoc serve Swagger UI and ReDoc from the installed fastapi-offline package:
    # the pages work with no network (FastAPI's own load them from a CDN)
    app = FastAPIOffline(
        title="memvault",
        version="1",
        summary="Long-term memory for AI agents: write, recall, dream, review.",
        lifespan=lifespan,
        responses={
            401: {"model": ErrorResponse},
            404: {"model": ErrorResponse},
            413: {"model": ErrorResponse},
            429: {"model": ErrorResponse},
            422: {"model": ErrorResponse},
        },
    )
    app.state.vault = vault
    app.state.jobs = jobs
    app.state.keys = KeyStore(vault.store, settings.secret_key, settings.server.admin_key)
    app.state.throttle = throttle_for(settings, vault.c.coord)
    app.add_middleware(BodyLimit, limit=settings.server.max_body_bytes)
    metrics = Metrics(vault, json_logs=settings.server.json_logs, jobs=jobs)
    if settings.server.json_logs:
        configure_logs(json=True)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    for router in (
        memory.router,
        imports.router,
        forget.router,
        dream.router,
        persona.router,
        types.router,
        admin_routes.router,
        console.router,
        console_memory.router,
    ):
        app.include_router(router)
    _handlers(app)

    @app.get("/metrics", tags=["health"], dependencies=[Depends(admin)])
    def prometheus() -> Response:
        """Prometheus text format (admin key): requests and latency per route, recall
        latency, dream runs and changes per op, review queue depth, LLM calls and tokens."""
        return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    @app.get("/healthz", tags=["health"])
    def healthz() -> JSONResponse:
        """Liveness and what depends on what: recall needs the store; jobs need the queue."""
        checks: dict[str, str] = {}
        try:
            vault.store.namespaces()
            checks["store"] = "ok"
        except MemvaultError as exc:
            checks["store"] = f"unavailable: {exc}"
        try:
            jobs.check()
            checks["jobs"] = "ok"
        except MemvaultError as exc:
            checks["jobs"] = f"unavailable: {exc}"
        ok = checks["store"] == "ok"
        return JSONResponse({"status": "ok" if ok else "degraded", **checks}, 200 if ok else 503)

    return app


def _handlers(app: FastAPI) -> None:
    def on(kind: type[Exception]) -> Callable[[Callable[..., JSONResponse]], Any]:
        def register(fn: Callable[..., JSONResponse]) -> Any:
            async def handler(request: Request, exc: Exception) -> JSONResponse:
                return fn(exc)

            app.add_exception_handler(kind, handler)
            return fn

        return register

    def _field(loc: tuple[Any, ...] | list[Any]) -> str:
        """A location's field path without where it was sent (body, query, path, header,
        cookie): only the first part says that, as a body field may itself be "query"."""
        where = 1 if loc and loc[0] in ("body", "query", "path", "header", "cookie") else 0
        return ".".join(str(p) for p in loc[where:])

    async def _invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)

        def message(e: dict[str, Any]) -> str:
            said = e["type"] == "extra_forbidden" and unknown_fields.hint(request, e["loc"])
            return said or e["msg"].removeprefix("Value error, ")

        details = [
            {
                "field": _field(e["loc"]),
                "in": str(e["loc"][0]) if e["loc"] else None,
                "message": message(e),
            }
            for e in exc.errors()
        ]
        first = details[0] if details else {"field": None, "message": "invalid request"}
        return _error(
            422,
            "invalid_input",
            f"{first['field'] or 'request'}: {first['message']}",
            field=first["field"],
            details=details,
        )

    app.add_exception_handler(RequestValidationError, _invalid)

    @on(StarletteHTTPException)
    def _http(exc: StarletteHTTPException) -> JSONResponse:
        response = _error(
            exc.status_code, _STATUS_TYPE.get(exc.status_code, "error"), str(exc.detail)
        )
        if exc.headers:
            response.headers.update(exc.headers)
        return response

    @on(InvalidBatchError)
    def _batch(exc: InvalidBatchError) -> JSONResponse:
        return _error(
            422,
            "invalid_input",
            str(exc),
            hint=exc.hint,
            details=[{"where": p.where, "message": p.message} for p in exc.problems],
        )

    @on(InvalidInputError)
    def _input(exc: InvalidInputError) -> JSONResponse:
        return _error(422, "invalid_input", str(exc), field=exc.field, hint=exc.hint)

    @on(NotFoundError)
    def _missing(exc: NotFoundError) -> JSONResponse:
        return _error(404, "not_found", str(exc))

    @on(ConflictError)
    def _conflict(exc: ConflictError) -> JSONResponse:
        return _error(409, "conflict", str(exc))

    @on(CoordinationUnavailable)
    def _unavailable(exc: CoordinationUnavailable) -> JSONResponse:
        return _error(
            503,
            "unavailable",
            str(exc),
            hint="jobs and dreams need the coordination store; recall and writes still work",
        )

    @on(ConfigError)
    def _config(exc: ConfigError) -> JSONResponse:
        return _error(500, "config", str(exc))

    @on(MemvaultError)
    def _other(exc: MemvaultError) -> JSONResponse:
        log.error("request failed: %s", exc)
        return _error(500, type(exc).__name__, str(exc))
