"""Background jobs as plain functions of a container, and the queues that run them.

The same functions run everywhere: Celery tasks (``workers/``) are thin wrappers over them;
``memvault serve`` runs them on an in-process thread pool with a scheduler thread. A job
returns JSON, so its result reads the same from any queue.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from abc import ABC, abstractmethod
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from memvault.bootstrap import Container
from memvault.errors import NotFoundError

log = logging.getLogger(__name__)


def dream_namespace(
    c: Container, namespace: str, *, apply: bool = True, force: bool = False
) -> dict[str, Any]:
    """One dream of one namespace. Idempotent: the gate closes after an applied run, the
    lock keeps two workers from dreaming one namespace at once, and an interrupted run is
    resumed from its journal before a new one starts."""
    from memvault.dream.runner import Dreamer

    result = Dreamer(c).dream(namespace, now=c.clock.now(), apply=apply, force=force)
    out = {
        "namespace": namespace,
        "status": result.status,
        "run_id": result.run_id,
        "gate": {"open": result.gate.open, "reasons": result.gate.reasons},
        "changes": len(result.plan.changes) if result.plan else 0,
        "applied": result.applied.applied if result.applied else 0,
        "review_ids": result.review_ids,
        "resumed_runs": result.report.get("resumed_runs", []),
    }
    line = {"event": "dream_job", **{k: out[k] for k in ("namespace", "run_id", "status")}}
    log.info(json.dumps(line | {"changes": out["changes"], "applied": out["applied"]}))
    return out


def namespaces_due(c: Container) -> list[str]:
    """Namespaces whose dream gate is open now (what the nightly check fans out)."""
    from memvault.dream.runner import Dreamer

    dreamer, now = Dreamer(c), c.clock.now()
    return [ns for ns in c.store.namespaces() if dreamer.gate(ns, now).open]


def prefetch_session(c: Container, namespace: str, session_id: str) -> dict[str, Any]:
    """Warm a session's predicted questions (memvault.profile.prefetch)."""
    from memvault.vault import MemVault

    return MemVault(c).prefetch(session_id, namespace=namespace)


def diary_check(c: Container, skip: list[str]) -> list[str]:
    """The nightly diary: today's and yesterday's snapshots for every namespace not in
    ``skip`` (those dreaming now write theirs when the dream applies)."""
    from memvault.profile.diary import write_snapshots

    done = []
    for ns in c.store.namespaces():
        if ns not in skip:
            write_snapshots(c.store, ns, c.clock.now(), c.settings.profile, c.llm)
            done.append(ns)
    return done


class JobQueue(ABC):
    """Where the API sends jobs. ``status`` is ``queued | running | done | failed`` with
    the result or the error."""

    @abstractmethod
    def submit_dream(self, namespace: str, *, apply: bool, force: bool) -> str: ...

    @abstractmethod
    def submit_prefetch(self, namespace: str, session_id: str) -> str: ...

    @abstractmethod
    def status(self, job_id: str) -> dict[str, Any]: ...

    def check(self) -> None:  # noqa: B027 - optional: raise when the queue cannot take jobs
        """Raise when jobs cannot be queued now (e.g. the broker is down)."""

    def close(self) -> None:  # noqa: B027
        pass


class InProcessJobs(JobQueue):
    """A thread pool in this process (embedded ``memvault serve``), plus an optional
    scheduler thread that runs the nightly check every ``interval_s``."""

    KEEP = 1000

    def __init__(self, c: Container, *, workers: int = 1, interval_s: float | None = None):
        self.c = c
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="memvault-job")
        self._jobs: dict[str, tuple[str, Future[dict[str, Any]]]] = {}
        self._stop = threading.Event()
        self._scheduler: threading.Thread | None = None
        if interval_s:
            self._scheduler = threading.Thread(
                target=self._schedule, args=(interval_s,), name="memvault-scheduler", daemon=True
            )
            self._scheduler.start()

    def submit_dream(self, namespace: str, *, apply: bool, force: bool) -> str:
        future = self._pool.submit(dream_namespace, self.c, namespace, apply=apply, force=force)
        return self._keep(namespace, future)

    def submit_prefetch(self, namespace: str, session_id: str) -> str:
        return self._keep(namespace, self._pool.submit(prefetch_session, self.c, namespace,
                                                       session_id))  # fmt: skip

    def _keep(self, namespace: str, future: Future[dict[str, Any]]) -> str:
        job_id = uuid.uuid4().hex
        self._jobs[job_id] = (namespace, future)
        # remember the newest KEEP jobs; older finished ones are forgotten (status: 404)
        for old in list(self._jobs)[: max(0, len(self._jobs) - self.KEEP)]:
            if self._jobs[old][1].done():
                del self._jobs[old]
        return job_id

    def status(self, job_id: str) -> dict[str, Any]:
        if job_id not in self._jobs:
            raise NotFoundError("job", job_id)
        namespace, future = self._jobs[job_id]
        out: dict[str, Any] = {"job_id": job_id, "namespace": namespace}
        if not future.done():
            return out | {"status": "running" if future.running() else "queued"}
        error = future.exception()
        if error is not None:
            return out | {"status": "failed", "error": f"{type(error).__name__}: {error}"}
        return out | {"status": "done", "result": future.result()}

    def run_check(self) -> list[str]:
        due = namespaces_due(self.c)
        for ns in due:
            self.submit_dream(ns, apply=True, force=False)
        diary_check(self.c, skip=due)
        return due

    def _schedule(self, interval_s: float) -> None:
        while not self._stop.wait(interval_s):
            try:
                started = time.monotonic()
                due = self.run_check()
                log.info(
                    "dream check: %d namespace(s) due (%.2fs)", len(due), time.monotonic() - started
                )
            except Exception:  # the scheduler keeps running; the failure is logged, not lost
                log.exception("the scheduled dream check failed")

    def close(self) -> None:
        self._stop.set()
        self._pool.shutdown(wait=True)
