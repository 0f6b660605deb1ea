"""The vectors capability of the SDK facade (``vault.vectors``): the model a namespace's
vectors come from, the meaning vectors that arrive after the write (memvault.ingest.catchup)
and re-embedding with another model (memvault.ingest.reembed)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from memvault.container import Capability, Facade
from memvault.errors import ConfigError, InvalidInputError
from memvault.ingest.catchup import CatchUpReport, CatchUpThread, catch_up, drain, pending
from memvault.ingest.catchup_process import CatchUpProcess, CatchUpProcessError
from memvault.ingest.reembed import ReembedReport, reembed
from memvault.kg.store import Batch, Doc, Store

EMBEDDER = "embedder"  # document kind: the model and dimension a namespace's vectors have
log = logging.getLogger(__name__)


class Vectors(Capability[Facade]):
    def __init__(self, vault: Facade) -> None:
        super().__init__(vault)
        self._catchup: CatchUpThread | None = None  # embedded mode's catch-up, once started
        self._process: CatchUpProcess | None = None  # setting catch_up_process
        self._embedders: dict[str, dict[str, Any]] = {}  # namespaces whose model was checked

    def embedder_of(self, namespace: str) -> dict[str, Any]:
        """The model and dimension the namespace's vectors were made with (recorded at its
        first write), beside the configured one."""
        e = self.c.embedder
        found = self.c.store.get_docs(namespace, EMBEDDER, ["current"])
        recorded = found[0].body if found else None
        return {
            "vectors": recorded,
            "configured": {"name": e.name, "dim": e.dim},
            "matches": recorded is None or recorded == {"name": e.name, "dim": e.dim},
        }

    def check_embedder(self, ns: str, *, writing: bool) -> None:
        """A namespace's vectors all come from one model: the first write records it; an
        embedder of another dimension is refused (its vectors cannot be compared: export and
        import into a vault configured with it), another model of the same dimension is
        logged once (recall still runs, by a different measure, until ``memvault
        reembed``)."""
        if ns in self._embedders:
            return
        e = self.c.embedder
        found = self.c.store.get_docs(ns, EMBEDDER, ["current"])
        if found:
            recorded = found[0].body
            if int(recorded.get("dim", e.dim)) != e.dim:
                raise ConfigError(
                    f"namespace {ns!r} holds vectors of {recorded.get('name')} "
                    f"({recorded.get('dim')} dimensions); the configured embedder {e.name} "
                    f"makes {e.dim}: configure {recorded.get('name')} again, or move to the new "
                    f"model with `memvault export -n {ns}` and `memvault import` into a vault "
                    "configured with it (the import computes its vectors)",
                    setting="embedder_model",
                )
            if recorded.get("name") != e.name:
                log.warning(
                    "namespace %s holds vectors of %s; the configured embedder is %s: run "
                    "`memvault reembed -n %s --apply` to compare like with like",
                    ns, recorded.get("name"), e.name, ns,
                )  # fmt: skip
            self._embedders[ns] = recorded
        elif writing:
            record(self.c.store, ns, e.name, e.dim)
            self._embedders[ns] = {"name": e.name, "dim": e.dim}

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

    def reembed(
        self,
        *,
        namespace: str | None = None,
        apply: bool = False,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> ReembedReport:
        """Recompute the namespace's vectors with the configured embedder (dry run unless
        ``apply``): memvault.ingest.reembed."""
        ns = self.ns(namespace)
        if ns not in self.store.namespaces():
            raise InvalidInputError(
                f"no namespace {ns!r} in this vault",
                field="namespace",
                hint=f"namespaces: {', '.join(self.store.namespaces()) or 'none yet'}",
            )
        done = reembed(
            self.store,
            self.c.embedder,
            ns,
            apply=apply,
            on_progress=on_progress,
            chunk_chars=self.settings.chunk_chars,
        )
        if apply:  # the namespace's vectors are now the configured model's
            record(self.store, ns, self.c.embedder.name, self.c.embedder.dim)
            self._embedders.pop(ns, None)
        return done

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

    def vectors_owed(self, ns: str, count: int) -> None:
        """After a deferred write: wake the in-process catch-up (embedded mode)."""
        s = self.c.settings
        if not count or not s.catch_up_thread or s.mode == "server":
            return  # server mode: the API queues a catch-up job for the worker
        if self._catchup is None:
            why_not = self._no_process()
            if s.catch_up_process and why_not is None:
                e = self.c.embedder
                self._process = CatchUpProcess(s, (e.name, e.dim))
            elif s.catch_up_process:
                log.warning("catch_up_process: %s; catching up in a thread", why_not)
            self._catchup = CatchUpThread(self._run_catch_up)
        self._catchup.kick(ns)

    def _no_process(self) -> str | None:
        """Why another process could not catch this vault up (None: it can)."""
        if not self.c.from_settings:
            return "a store, embedder or coordination was handed in, not built from settings"
        if self.c.settings.store == "sqlite" and str(self.c.settings.db_path) == ":memory:":
            return "an in-memory database is this process's alone"
        return None

    def _run_catch_up(self, ns: str, stop: threading.Event) -> object:
        """The catch-up thread's work: in the catch-up process where there is one, else here
        (also, labelled in the log, where that process cannot start or refuses)."""
        process = self._process
        if process is not None:
            try:
                return process.run(ns, stop)
            except CatchUpProcessError as exc:
                if process.closed:  # the vault is closing: the marks wait for the next
                    return None
                log.warning("catch-up process fallback: %s; catching up in a thread", exc)
        return self._catch_up(ns, stop=stop)

    def stop_catch_up(self) -> None:
        """Stop the catch-up between batches (the vault closes): what it committed stays,
        the rest waits for the next catch-up."""
        if self._process is not None:
            self._process.close()  # first: the thread may be waiting on its answer
        if self._catchup is not None:
            self._catchup.close()
            self._catchup = None
        self._process = None


def record(store: Store, namespace: str, name: str, dim: int) -> None:
    """Record the model a namespace's vectors are made with (reembed calls it after a switch)."""
    doc = Doc(kind=EMBEDDER, id="current", body={"name": name, "dim": dim})
    store.apply(Batch(namespace=namespace, docs=[doc], quiet=True))
