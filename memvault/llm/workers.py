"""The offline rules of a bulk write in worker processes (setting ``rule_workers``).

The offline provider's handlers are pure functions of a prompt's inputs, and once vectors
are deferred the extraction rules are most of what a bulk write costs, on one core
(docs/benchmarks.md). A batch of at least ``MIN_BATCH`` prompts is split over worker
processes, each a fresh interpreter running :func:`serve` of this module:
never a fork of the writer (its threads and their locks stay behind) and never a second run
of the caller's script (what multiprocessing's spawn and forkserver do to a script without a
``__main__`` guard: its writes would happen twice). The parent sends each worker one
length-prefixed pickle (the handler's module and name, and its share of the inputs, in
order); each answers with the handler's results, an exception where the handler raised one.
A worker that dies or answers out of turn stops the pool (:class:`WorkerError`): the caller
runs that batch in-process, and the next batch starts fresh workers.
"""

from __future__ import annotations

import atexit
import importlib
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from memvault.errors import MemvaultError
from memvault.logs import get_logger

log = get_logger(__name__)

MIN_BATCH = 32  # fewer prompts are answered in-process: a worker's round trip costs more
_HEADER = 8


class WorkerError(MemvaultError):
    """The workers could not answer a batch (a worker died, or answered out of turn)."""


def workers_for(setting: int, *, server: bool = False) -> int:
    """``rule_workers``: 0 = one less than the cores, at most 8, when there are 4 or more
    (else none: on 2 cores the writer and the vectors' catch-up have them), and none in
    server mode (its API and worker processes share the machine); n = n."""
    if setting:
        return setting
    if server:
        return 1
    cores = os.cpu_count() or 1
    return min(cores - 1, 8) if cores >= 4 else 1


def importable(handler: Callable[..., Any]) -> tuple[str, str] | None:
    """(module, name) a worker can import ``handler`` by, or None (a closure, a lambda)."""
    module, name = getattr(handler, "__module__", None), getattr(handler, "__qualname__", "")
    if not module or "<" in name:
        return None
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None
    return (module, name) if found is handler else None


def run_pure(
    handler: Callable[[Mapping[str, Any]], Any], inputs: Sequence[Mapping[str, Any]], workers: int
) -> list[Any] | None:
    """``handler(i)`` for each of ``inputs`` in ``workers`` processes (each answer, or the
    exception the handler raised), or None where they cannot take it: fewer than
    ``MIN_BATCH`` inputs, one worker, a handler they cannot import, or workers that failed
    (logged ``offline.workers_fallback``). None: the caller runs the batch itself."""
    where = importable(handler) if workers > 1 and len(inputs) >= MIN_BATCH else None
    if where is None:
        return None
    try:
        return shared(workers).run(where, inputs)
    except WorkerError as exc:
        log.warning("offline.workers_fallback", reason=str(exc), handler=".".join(where))
        return None


IDLE_S = 60.0  # workers left idle this long are stopped (the next batch starts them again)


class WorkerPool:
    def __init__(self, size: int):
        self.size = size
        self._procs: list[subprocess.Popen[bytes]] = []
        self._lock = threading.Lock()
        self._idle: threading.Timer | None = None

    def run(self, handler: tuple[str, str], inputs: Sequence[Mapping[str, Any]]) -> list[Any]:
        """``handler(i)`` for each of ``inputs``, in order, over the workers: the handler's
        answer, or the exception it raised."""
        with self._lock:
            if self._idle is not None:
                self._idle.cancel()
            self._start()
            share = -(-len(inputs) // len(self._procs))
            parts = [list(inputs[i : i + share]) for i in range(0, len(inputs), share)]
            busy = self._procs[: len(parts)]
            try:
                for proc, part in zip(busy, parts, strict=True):
                    assert proc.stdin is not None
                    send(proc.stdin, (handler, part))
                out: list[Any] = []
                for proc, part in zip(busy, parts, strict=True):
                    assert proc.stdout is not None
                    answers = receive(proc.stdout)
                    if not isinstance(answers, list) or len(answers) != len(part):
                        raise ValueError("a worker answered out of turn")
                    out += answers
            except (OSError, EOFError, ValueError, pickle.PickleError) as exc:
                self._stop()
                raise WorkerError(f"the rule workers failed ({exc!r})") from exc
            self._idle = threading.Timer(IDLE_S, self.close)
            self._idle.daemon = True
            self._idle.start()
            return out

    def close(self) -> None:
        with self._lock:
            if self._idle is not None:
                self._idle.cancel()
            self._stop()

    def _start(self) -> None:
        if len(self._procs) == self.size and all(p.poll() is None for p in self._procs):
            return
        self._stop()
        root = str(Path(__file__).resolve().parents[2])  # where this ``memvault`` is
        # this memvault first, ahead of whatever the working directory holds
        boot = f"import sys; sys.path.insert(0, {root!r}); from {__name__} import serve; serve()"
        self._procs = [
            subprocess.Popen(
                [sys.executable, "-c", boot], stdin=subprocess.PIPE, stdout=subprocess.PIPE
            )
            for _ in range(self.size)
        ]

    def _stop(self) -> None:
        for proc in self._procs:
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
                proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        self._procs = []


_POOLS: dict[int, WorkerPool] = {}
_POOLS_LOCK = threading.Lock()


def shared(size: int) -> WorkerPool:
    """The process's pool of ``size`` workers (started on first use, stopped at exit)."""
    with _POOLS_LOCK:
        if size not in _POOLS:
            _POOLS[size] = WorkerPool(size)
        return _POOLS[size]


@atexit.register
def _close_all() -> None:
    for pool in list(_POOLS.values()):
        pool.close()


def send(stream: IO[bytes], obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(data).to_bytes(_HEADER, "big") + data)
    stream.flush()


def receive(stream: IO[bytes]) -> Any:
    header = _exactly(stream, _HEADER)
    return pickle.loads(_exactly(stream, int.from_bytes(header, "big")))


def _exactly(stream: IO[bytes], n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = stream.read(left)
        if not chunk:
            raise EOFError("the other side closed the pipe")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _portable(exc: Exception) -> Exception:
    try:
        pickle.dumps(exc)
    except Exception:
        return RuntimeError(repr(exc))
    return exc


def serve() -> None:
    """A worker: answer batches from stdin on stdout until stdin closes. What the handlers
    print goes to stderr: stdout carries only answers."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    handlers: dict[tuple[str, str], Callable[[Mapping[str, Any]], Any]] = {}
    while True:
        try:
            (module, name), inputs = receive(sys.stdin.buffer)
        except EOFError:
            return
        if (module, name) not in handlers:
            handlers[(module, name)] = getattr(importlib.import_module(module), name)
        handler = handlers[(module, name)]
        answers: list[Any] = []
        for item in inputs:
            try:
                answers.append(handler(item))
            except Exception as exc:
                answers.append(_portable(exc))
        send(out, answers)


if __name__ == "__main__":
    serve()
