"""Meaning vectors that arrive after the write (memvault.ingest.catchup) on the SDK facade:
``MemVault`` inherits these."""

from __future__ import annotations

import threading
from collections.abc import Callable

from memvault.bootstrap import Container
from memvault.ingest.catchup import CatchUpReport, CatchUpThread, catch_up, drain, pending


class VectorMethods:
    c: Container
    _catchup: CatchUpThread | None

    def ns(self, namespace: str | None) -> str:
        raise NotImplementedError

    def vectors_pending(self, *, namespace: str | None = None) -> int:
        """How many memories of the namespace wait for their meaning vectors."""
        return pending(self.c.store, self.ns(namespace))

    def catch_up(
        self,
        *,
        namespace: str | None = None,
        limit: int | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> CatchUpReport:
        """Embed the memories that wait, here and now (``limit``: at most that many). When
        another process or thread is catching up the namespace, nothing is done and the
        report says ``busy``: :meth:`wait_for_vectors` waits for it instead."""
        return self._catch_up(self.ns(namespace), limit=limit, on_progress=on_progress)

    def wait_for_vectors(
        self,
        *,
        namespace: str | None = None,
        timeout: float | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> CatchUpReport:
        """Until every memory of the namespace has its vectors (or ``timeout`` seconds):
        catches up here, or waits for whoever is. ``left`` in the report: what still waits."""
        s = self.c.settings
        return drain(
            self.c.store,
            self.c.embedder,
            self.ns(namespace),
            self.c.coord,
            timeout=timeout,
            batch=s.catch_up_batch,
            chunk_chars=s.chunk_chars,
            on_progress=on_progress,
        )

    def _catch_up(
        self,
        ns: str,
        *,
        limit: int | None = None,
        stop: threading.Event | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> CatchUpReport:
        s = self.c.settings
        return catch_up(
            self.c.store,
            self.c.embedder,
            ns,
            batch=s.catch_up_batch,
            chunk_chars=s.chunk_chars,
            limit=limit,
            stop=stop,
            on_progress=on_progress,
            coord=self.c.coord,
        )

    def _vectors_owed(self, ns: str, count: int) -> None:
        """After a deferred write: wake the in-process catch-up (embedded mode)."""
        s = self.c.settings
        if not count or not s.catch_up_thread or s.mode == "server":
            return  # server mode: the API queues a catch-up job for the worker
        if self._catchup is None:
            self._catchup = CatchUpThread(lambda n, stop: self._catch_up(n, stop=stop))
        self._catchup.kick(ns)

    def _stop_catch_up(self) -> None:
        if self._catchup is not None:
            self._catchup.close()
            self._catchup = None
