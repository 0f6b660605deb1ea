"""Catch-up in a process of its own (setting ``catch_up_process``, embedded mode).

The in-process catch-up thread shares the writing process's interpreter lock: on a GPU
machine the writes alone and catch-up alone each passed 1,000 long turns a second, together
they made 710-730 (docs/benchmarks.md). Here the thread that the vault wakes after a deferred
write hands each namespace to a child process holding its own copy of the model, which
catches it up on the same store, and waits, its lock released, for the answer.

The child is a fresh interpreter running ``memvault.jobs.serve_catch_up`` (never a fork of
the writer, never a second run of the caller's script), started on the first deferred write
and kept until the vault closes. It builds its parts from the parent's settings and refuses
to start when its embedder is not the parent's (name and dimension), so a namespace's vectors
always come from one model. The protocol is JSON lines: the parent's settings and embedder
first, then one namespace a line; the child answers each with what it embedded. Nothing is
lost to a kill on either side: the marks stay until the transaction that writes their vectors
(memvault.ingest.catchup), the per-namespace lock expires, and a child that died is started
again for the next namespace. Closing the child's input stops it between batches.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from queue import Queue
from typing import IO, Any

from memvault.config import Settings
from memvault.container import Container
from memvault.errors import MemvaultError
from memvault.ingest.catchup import catch_up
from memvault.logs import get_logger

log = get_logger(__name__)

STOP_S = 60.0  # how long closing waits for the child to finish its batch before killing it


class CatchUpProcessError(MemvaultError):
    """The catch-up process could not start, died, or refused (its embedder is not the
    vault's): the namespace's marks stay for the next catch-up."""


class CatchUpProcess:
    """The parent's side: ``run(namespace)`` blocks until the child has caught it up."""

    def __init__(self, settings: Settings, embedder: tuple[str, int]):
        self._hello = {"settings": settings.model_dump(mode="json"), "embedder": list(embedder)}
        self._proc: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()
        self._closed = threading.Event()

    def run(self, namespace: str, stop: threading.Event | None = None) -> dict[str, Any]:
        with self._lock:
            proc = None if self._stopping(stop) else self._start()
            if proc is None or self._stopping(stop):  # closed while the child was starting
                return {"namespace": namespace, "embedded": 0}
            answer = self._ask(proc, {"namespace": namespace})
            if "error" in answer:
                raise CatchUpProcessError(f"catch-up of {namespace}: {answer['error']}")
            return answer

    def _stopping(self, stop: threading.Event | None) -> bool:
        return self._closed.is_set() or (stop is not None and stop.is_set())

    def close(self) -> None:
        """Stop the child between batches (what it committed stays), or before it starts
        work when it is still starting: its input closed, then its output once the thread
        that may be reading its last answer has it."""
        self._closed.set()
        proc, self._proc = self._proc, None
        if proc is None:
            return
        _end(proc)
        if self._lock.acquire(timeout=STOP_S):
            try:
                assert proc.stdout is not None
                proc.stdout.close()
            finally:
                self._lock.release()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def _start(self) -> subprocess.Popen[str]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        root = str(Path(__file__).resolve().parents[2])  # this memvault, ahead of the cwd's
        boot = (
            f"import sys; sys.path.insert(0, {root!r}); "
            "from memvault.jobs import serve_catch_up; serve_catch_up()"
        )
        proc = subprocess.Popen(
            [sys.executable, "-c", boot],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self._proc = proc  # from here on, closing stops it too
        answer = self._ask(proc, self._hello)
        if not answer.get("ready"):
            self._proc = None
            _end(proc)
            assert proc.stdout is not None
            proc.stdout.close()
            raise CatchUpProcessError(answer.get("error", "the catch-up process did not start"))
        return proc

    def _ask(self, proc: subprocess.Popen[str], message: dict[str, Any]) -> dict[str, Any]:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
        except (OSError, ValueError) as exc:  # a broken pipe, or one closed by ``close``
            line = ""
            if not self._closed.is_set():
                log.warning("catch_up_process.pipe", reason=repr(exc))
        if not line:
            code = proc.wait()
            self._proc = None
            for pipe in (proc.stdin, proc.stdout):
                try:
                    if pipe is not None:
                        pipe.close()
                except OSError:  # the child is gone: what it did not read is lost with it
                    pass
            raise CatchUpProcessError(f"the catch-up process exited (status {code})")
        answer: dict[str, Any] = json.loads(line)
        return answer


def _end(proc: subprocess.Popen[str]) -> None:
    """Close the child's input (it stops between batches) and wait for it; kill it when it
    does not stop in time."""
    try:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=STOP_S)
    except (OSError, subprocess.TimeoutExpired):
        proc.kill()
        proc.wait()


def serve(build: Callable[[Settings], Container], stdin: IO[str], stdout: IO[str]) -> int:
    """The child's side: build the parts from the parent's settings, check the embedder,
    then catch up each namespace named on ``stdin`` until it is closed."""
    first = stdin.readline()
    if not first.strip():  # closed before it said anything: the vault is closing
        return 0
    hello = json.loads(first)
    settings = Settings.model_validate(hello.get("settings", {})).model_copy(
        update={"catch_up_thread": False, "catch_up_process": False}
    )
    c = build(settings)
    mine = [c.embedder.name, c.embedder.dim]
    if mine != hello.get("embedder"):
        _say(stdout, {"error": f"its embedder is {mine}, the vault's {hello.get('embedder')}"})
        return 2
    _say(stdout, {"ready": True})
    lines: Queue[str | None] = Queue()
    stop = threading.Event()

    def read() -> None:  # the parent closing the pipe stops the batch loop at once
        for line in stdin:
            lines.put(line)
        stop.set()
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    while (line := lines.get()) is not None:
        namespace = json.loads(line)["namespace"]
        done = 0
        try:
            while not stop.is_set():
                report = catch_up(
                    c.store,
                    c.embedder,
                    namespace,
                    batch=settings.catch_up_batch,
                    chunk_chars=settings.chunk_chars,
                    stop=stop,
                    coord=c.coord,
                )
                done += report.embedded
                if report.busy or not report.left:  # whoever holds the lock finishes it
                    break
            answer: dict[str, Any] = {"namespace": namespace, "embedded": done}
        except Exception as exc:  # the parent logs it; the marks stay for the next catch-up
            log.exception("catch_up_process.failed", namespace=namespace)
            answer = {"namespace": namespace, "error": repr(exc)}
        if not _say(stdout, answer):
            break  # the parent is gone
    c.store.close()
    c.close()
    return 0


def _say(stdout: IO[str], message: dict[str, Any]) -> bool:
    try:
        stdout.write(json.dumps(message) + "\n")
        stdout.flush()
    except OSError:  # a broken pipe: no one is listening any more
        return False
    return True
