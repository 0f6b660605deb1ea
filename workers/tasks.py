"""Celery tasks: thin wrappers over :mod:`memvault.jobs`. Each worker process opens one
container (store, coordination, models) on first use and keeps it."""

from __future__ import annotations

from functools import cache
from typing import Any

from memvault import jobs
from memvault.bootstrap import Container, bootstrap
from memvault.coord.redis import CoordinationUnavailable
from memvault.errors import ConflictError, StoreError
from memvault.logs import configure as configure_logs
from memvault.logs import get_logger
from workers.app import app

log = get_logger(__name__)


@cache
def container() -> Container:
    c = bootstrap()
    if c.settings.server.json_logs:  # one JSON line per job, with its run id
        configure_logs(json=True)
    return c


@app.task(
    name="memvault.dream_namespace",
    bind=True,
    acks_late=True,
    # a held lock (another worker dreams it now) or a store / Redis hiccup: try again later
    autoretry_for=(ConflictError, CoordinationUnavailable, StoreError),
    retry_backoff=5,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=5,
)
def dream_namespace(
    self: Any, namespace: str, apply: bool = True, force: bool = False
) -> dict[str, Any]:
    """One dream of one namespace (idempotent; resumes an interrupted run first)."""
    return jobs.dream_namespace(container(), namespace, apply=apply, force=force)


@app.task(
    name="memvault.catch_up",
    acks_late=True,  # a worker killed midway: the task runs again and embeds what is left
    autoretry_for=(CoordinationUnavailable, StoreError),
    retry_backoff=5,
    max_retries=5,
)
def catch_up(namespace: str) -> dict[str, Any]:
    """Embed what deferred writes owe in one namespace."""
    out = jobs.catch_up_namespace(container(), namespace)
    if (
        out["busy"] and out["left"]
    ):  # another worker is at it; make sure nothing is left behind after it
        catch_up.apply_async(args=[namespace], countdown=5)
    return out


@app.task(name="memvault.prefetch")
def prefetch(namespace: str, session_id: str) -> dict[str, Any]:
    """Warm a session's predicted questions (bounded; results kept in the store)."""
    return jobs.prefetch_session(container(), namespace, session_id)


@app.task(name="memvault.dream_check", acks_late=True)
def dream_check() -> dict[str, Any]:
    """The nightly fan-out: one dream task per namespace whose gate is open; the diary's
    snapshots for the others."""
    c = container()
    due = jobs.namespaces_due(c)
    for ns in due:
        dream_namespace.delay(ns)
    diaries = jobs.diary_check(c, skip=due)
    for ns in jobs.namespaces_owed(c):  # deferred writes whose catch-up job was lost
        catch_up.delay(ns)
    log.info("dream_check", due=len(due), diaries=len(diaries))
    return {"queued": due, "diaries": diaries}
