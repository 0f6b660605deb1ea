"""Background jobs as plain functions of a container, and the queues that run them.

The same functions run everywhere: Celery tasks (``workers/``) are thin wrappers over them;
``memvault serve`` runs them on an in-process thread pool with a scheduler thread. A job
returns JSON, so its result reads the same from any queue.
"""

from __future__ import annotations

import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from memvault.container import Container
from memvault.errors import NotFoundError
from memvault.logs import get_logger

log = get_logger(__name__)


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
        # forced: open although the reasons say it would have stayed closed
        "gate": {
            "open": result.gate.open,
            "forced": result.gate.forced,
            "reasons": result.gate.reasons,
        },
        "changes": len(result.plan.changes) if result.plan else 0,
        "applied": result.applied.applied if result.applied else 0,
        "review_ids": result.review_ids,
        "resumed_runs": result.report.get("resumed_runs", []),
    }
    log.info(
        "dream_job",
        **{k: out[k] for k in ("namespace", "run_id", "status", "changes")},
        applied=out["applied"],
    )
    return out


def catch_up_namespace(c: Container, namespace: str) -> dict[str, Any]:
    """Embed what deferred writes left without vectors in one namespace (memvault.ingest.
    catchup): idempotent, one at a time per namespace across processes; a run killed midway
    leaves its marks for the next."""
    from memvault.ingest.catchup import catch_up

    report = catch_up(
        c.store,
        c.embedder,
        namespace,
        batch=c.settings.catch_up_batch,
        chunk_chars=c.settings.chunk_chars,
        coord=c.coord,
    )
    out = report.as_dict()
    log.info("catch_up_job", **out)
    return out


def serve_catch_up() -> None:
    """The catch-up process of an embedded vault (setting ``catch_up_process``; started by
    memvault.ingest.catchup_process): JSON lines on stdin and stdout. Anything else that
    writes to stdout (a library's notice) goes to stderr, not into the answers."""
    import os
    import sys

    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    from memvault.bootstrap import bootstrap
    from memvault.ingest.catchup_process import serve

    sys.exit(serve(bootstrap, sys.stdin, answers))


def namespaces_owed(c: Container) -> list[str]:
    """Namespaces with memories still waiting for their vectors (the periodic check queues
    their catch-up: a job lost with a killed API process is not lost for good)."""
    from memvault.ingest.catchup import pending

    return [ns for ns in c.store.namespaces() if pending(c.store, ns)]


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
    """Where the API sends jobs. ``status`` is ``queued | running | done | failed`` (or
    ``dropped``: a prefetch a newer one replaced) with the result or the error."""

    @abstractmethod
    def submit_dream(self, namespace: str, *, apply: bool, force: bool) -> str: ...

    @abstractmethod
    def submit_prefetch(self, namespace: str, session_id: str) -> str: ...

    @abstractmethod
    def submit_catch_up(self, namespace: str) -> str:
        """Queue the embedding of what deferred writes owe (a job of the dream's lane: it
        is owed work, never dropped)."""

    @abstractmethod
    def status(self, job_id: str) -> dict[str, Any]: ...

    def depth(self) -> dict[str, int]:
        """Jobs waiting, per kind (``/metrics``); empty when the queue cannot tell."""
        return {}

    def check(self) -> None:  # noqa: B027 - optional: raise when the queue cannot take jobs
        """Raise when jobs cannot be queued now (e.g. the broker is down)."""

    def close(self) -> None:  # noqa: B027
        pass


Work = tuple[Future[dict[str, Any]], Callable[[], dict[str, Any]]]


class Lanes:
    """Two lanes for one pool of workers: dreams first, always; prefetch only when no dream
    waits, bounded (``prefetch_limit``) and droppable. A prefetch is a guess that loses its
    worth with time, so the newest wins: a new one for a session replaces the one still queued
    for it, and a full lane drops its oldest. A thousand prefetch jobs ahead of a dream delay
    it by at most the job that is already running."""

    def __init__(self, prefetch_limit: int):
        self.prefetch_limit = max(1, prefetch_limit)
        self._cv = threading.Condition()
        self._dreams: deque[Work] = deque()
        self._prefetch: OrderedDict[tuple[str, str], Work] = OrderedDict()
        self._closed = False
        self.dropped = 0

    def put_dream(self, work: Work) -> None:
        with self._cv:
            self._dreams.append(work)
            self._cv.notify()

    def put_prefetch(self, key: tuple[str, str], work: Work) -> None:
        with self._cv:
            if (replaced := self._prefetch.pop(key, None)) is not None:
                self._drop(replaced)
            while len(self._prefetch) >= self.prefetch_limit:
                self._drop(self._prefetch.popitem(last=False)[1])
            self._prefetch[key] = work
            self._cv.notify()

    def _drop(self, work: Work) -> None:
        work[0].cancel()  # still pending: its status reads "dropped"
        self.dropped += 1

    def get(self) -> Work | None:
        """The next job (a dream if any waits), or None once closed."""
        with self._cv:
            while not (self._dreams or self._prefetch or self._closed):
                self._cv.wait()
            if self._dreams:
                return self._dreams.popleft()
            if self._prefetch:
                return self._prefetch.popitem(last=False)[1]
            return None

    def depth(self) -> dict[str, int]:
        with self._cv:
            return {"dream": len(self._dreams), "prefetch": len(self._prefetch)}

    def close(self) -> None:
        """Queued dreams still run (the workers drain them); queued prefetch is dropped."""
        with self._cv:
            self._closed = True
            for work in self._prefetch.values():
                self._drop(work)
            self._prefetch.clear()
            self._cv.notify_all()


class InProcessJobs(JobQueue):
    """Worker threads in this process (embedded ``memvault serve``) over :class:`Lanes`,
    plus an optional scheduler thread that runs the nightly check every ``interval_s``."""

    KEEP = 1000

    def __init__(
        self,
        c: Container,
        *,
        workers: int = 1,
        interval_s: float | None = None,
        prefetch_limit: int = 100,
    ):
        self.c = c
        self.lanes = Lanes(prefetch_limit)
        self._jobs: dict[str, tuple[str, Future[dict[str, Any]]]] = {}
        self._stop = threading.Event()
        self._workers = [
            threading.Thread(target=self._work, name=f"memvault-job-{i}", daemon=True)
            for i in range(max(1, workers))
        ]
        for t in self._workers:
            t.start()
        self._scheduler: threading.Thread | None = None
        if interval_s:
            self._scheduler = threading.Thread(
                target=self._schedule, args=(interval_s,), name="memvault-scheduler", daemon=True
            )
            self._scheduler.start()

    def submit_dream(self, namespace: str, *, apply: bool, force: bool) -> str:
        future: Future[dict[str, Any]] = Future()
        self.lanes.put_dream(
            (future, lambda: dream_namespace(self.c, namespace, apply=apply, force=force))
        )
        return self._keep(namespace, future)

    def submit_catch_up(self, namespace: str) -> str:
        future: Future[dict[str, Any]] = Future()
        self.lanes.put_dream((future, lambda: catch_up_namespace(self.c, namespace)))
        return self._keep(namespace, future)

    def submit_prefetch(self, namespace: str, session_id: str) -> str:
        future: Future[dict[str, Any]] = Future()
        job_id = self._keep(namespace, future)
        work = (future, lambda: prefetch_session(self.c, namespace, session_id))
        self.lanes.put_prefetch((namespace, session_id), work)
        return job_id

    def depth(self) -> dict[str, int]:
        return self.lanes.depth()

    def _work(self) -> None:
        while (work := self.lanes.get()) is not None:
            future, run = work
            if not future.set_running_or_notify_cancel():
                continue  # dropped while it waited
            try:
                future.set_result(run())
            except BaseException as exc:  # the job's failure is its status, read by the caller
                future.set_exception(exc)

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
        if future.cancelled():
            return out | {"status": "dropped"}
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
        for ns in namespaces_owed(self.c):
            self.submit_catch_up(ns)
        return due

    def _schedule(self, interval_s: float) -> None:
        while not self._stop.wait(interval_s):
            try:
                started = time.monotonic()
                due = self.run_check()
                took = round(time.monotonic() - started, 2)
                log.info("dream_check", due=len(due), seconds=took)
            except Exception:  # the scheduler keeps running; the failure is logged, not lost
                log.exception("the scheduled dream check failed")

    def close(self) -> None:
        """Finish the running and queued dreams, drop the waiting prefetch."""
        self._stop.set()
        self.lanes.close()
        for t in self._workers:
            t.join()
