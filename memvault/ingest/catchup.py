"""Meaning vectors computed after the write that acknowledged the memory (decision 0014).

A write that defers its vectors commits the episode, its keyword index entries, its entities
and facts and one ``vector_pending`` document per episode, in one transaction, and returns;
an episode's mark also lists the facts and entities its write created (their vectors wait
too: embedding them was most of a deferred write's time on real turns, which name many new
people and things). Catch-up reads those marks, embeds the episodes, their chunks and the
facts' statements and entities' names they list, in batches, and commits each batch's
vectors together with the removal of its marks. A process
killed at any point loses nothing: the marks of an uncommitted batch are still there and the
next catch-up embeds exactly what is left; a committed vector is never computed again. Until
its vector lands, a memory is found by its words and through the graph; ``stats``, recall and
``/metrics`` say how many wait.

Who runs it: an in-process thread after a deferred write (embedded), a job on the server's
queue (``memvault serve``, the Celery worker), ``memvault catch-up`` by hand, and the dream
before it judges a namespace.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from memvault.coord.port import Coordination, owner_id
from memvault.embed import Embedder
from memvault.errors import ConflictError
from memvault.ingest.chunking import vectors_of
from memvault.kg.model import Entity, Episode, Fact
from memvault.kg.store import Batch, Doc, Store
from memvault.language.text import CHUNK_CHARS

log = logging.getLogger(__name__)

PENDING = "vector_pending"  # document kind: one per episode whose vectors are owed
BATCH = 64
LOCK_TTL_S = 600.0  # renewed per batch; a killed holder's lock is taken over (coord.port)


def pending_docs(
    episodes: Sequence[Episode],
    now: datetime,
    facts: Sequence[Fact] = (),
    entities: Sequence[Entity] = (),
    mentions: Mapping[str, str] | None = None,
) -> list[Doc]:
    """The marks a deferred write commits with its episodes: each episode's, listing the
    ``facts`` drawn from it and the ``entities`` it named first (``mentions``: entity id →
    the episode; one not found goes with the first episode)."""
    owed: dict[str, dict[str, list[str]]] = {e.id: {} for e in episodes}
    first = episodes[0].id if episodes else None
    for f in facts:
        owner = next((i for i in f.source_episode_ids if i in owed), first)
        if owner is not None:
            owed[owner].setdefault("facts", []).append(f.id)
    for n in entities:
        owner = (mentions or {}).get(n.id, first)
        if owner in owed:
            owed[owner].setdefault("entities", []).append(n.id)
    return [
        Doc(kind=PENDING, id=e.id, body=owed[e.id], status="pending", created_at=now)
        for e in episodes
    ]


def pending(store: Store, namespace: str) -> int:
    """How many memories of the namespace still wait for their meaning vectors."""
    return store.count_docs(namespace, PENDING)


@dataclass
class CatchUpReport:
    namespace: str
    embedded: int = 0  # episodes whose vectors were written
    chunks: int = 0
    facts: int = 0  # facts and entities whose write deferred their vectors too
    entities: int = 0
    missing: int = 0  # marks of episodes deleted since: dropped
    left: int = 0
    seconds: float = 0.0
    busy: bool = False  # another process or thread was catching up this namespace

    def as_dict(self) -> dict[str, object]:
        per_s = self.embedded / self.seconds if self.seconds else 0.0
        return {
            "namespace": self.namespace,
            "embedded": self.embedded,
            "chunks": self.chunks,
            "facts": self.facts,
            "entities": self.entities,
            "missing": self.missing,
            "left": self.left,
            "busy": self.busy,
            "seconds": round(self.seconds, 2),
            "episodes_per_s": round(per_s, 1),
        }


def catch_up(
    store: Store,
    embedder: Embedder,
    namespace: str,
    *,
    batch: int = BATCH,
    chunk_chars: int = CHUNK_CHARS,
    limit: int | None = None,
    stop: threading.Event | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    coord: Coordination | None = None,
) -> CatchUpReport:
    """Embed what waits in ``namespace``, ``batch`` episodes per transaction, until nothing
    waits, ``limit`` episodes are done or ``stop`` is set. ``on_progress(done, total)``.
    With ``coord``, one catch-up per namespace at a time across processes (a lock renewed
    per batch): when another holds it, nothing is done and the report says ``busy``."""
    if coord is None:
        return _catch_up(
            store, embedder, namespace, batch, chunk_chars, limit, stop, on_progress, None
        )
    owner, name = owner_id(), f"catch-up:{namespace}"
    try:
        with coord.locked(name, owner, LOCK_TTL_S):
            renew = lambda: coord.acquire(name, owner, LOCK_TTL_S)  # noqa: E731
            return _catch_up(
                store, embedder, namespace, batch, chunk_chars, limit, stop, on_progress, renew
            )
    except ConflictError:
        return CatchUpReport(namespace=namespace, left=pending(store, namespace), busy=True)


def _catch_up(
    store: Store,
    embedder: Embedder,
    namespace: str,
    batch: int,
    chunk_chars: int,
    limit: int | None,
    stop: threading.Event | None,
    on_progress: Callable[[int, int], None] | None,
    renew: Callable[[], object] | None,
) -> CatchUpReport:
    report = CatchUpReport(namespace=namespace)
    total = pending(store, namespace)
    started = time.perf_counter()
    done = 0
    while (limit is None or done < limit) and not (stop is not None and stop.is_set()):
        size = batch if limit is None else min(batch, limit - done)
        marks = store.list_docs(namespace, PENDING, limit=size)
        if not marks:
            break
        if renew is not None:
            renew()
        ids = [d.id for d in marks]
        episodes = store.get_episodes(namespace, ids)
        owed = {k: [i for d in marks for i in d.body.get(k, [])] for k in ("facts", "entities")}
        facts = store.get_facts(namespace, owed["facts"])
        named = store.get_entities(namespace, owed["entities"])
        vectors = vectors_of(embedder, [*episodes, *facts, *named], chunk_chars)
        store.apply(
            Batch(namespace=namespace, vectors=vectors, drop_docs=[(PENDING, i) for i in ids])
        )
        report.embedded += len(episodes)
        report.facts += len(facts)
        report.entities += len(named)
        report.chunks += sum(1 for v in vectors if v.kind == "chunk")
        report.missing += len(ids) - len(episodes)
        done += len(ids)
        if on_progress is not None:
            on_progress(min(done, total), max(total, done))
    report.seconds = time.perf_counter() - started
    report.left = pending(store, namespace)
    if report.embedded:
        log.info(
            "catch-up %s: %d episodes (%d chunks) in %.1f s, %d left",
            namespace,
            report.embedded,
            report.chunks,
            report.seconds,
            report.left,
        )
    return report


class CatchUpThread:
    """The embedded mode's catch-up: one daemon thread per vault, woken by deferred writes,
    working through every namespace it was told about until nothing waits. ``close`` stops
    it between batches (what is committed stays; the rest waits for the next catch-up)."""

    def __init__(self, run: Callable[[str, threading.Event], object]):
        self._run = run
        self._due: dict[str, None] = {}
        self._cv = threading.Condition()
        self._stop = threading.Event()
        self._busy = False
        self._thread = threading.Thread(target=self._loop, name="memvault-catch-up", daemon=True)
        self._thread.start()
        self.errors = 0

    def kick(self, namespace: str) -> None:
        with self._cv:
            self._due[namespace] = None
            self._cv.notify_all()

    def idle(self, namespace: str | None = None) -> bool:
        with self._cv:
            return not self._busy and (namespace not in self._due if namespace else not self._due)

    def wait(self, timeout: float | None = None) -> bool:
        """Until every namespace it was told about is done (True) or ``timeout`` passes."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cv:
            while self._due or self._busy:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cv.wait(left)
            return True

    def _loop(self) -> None:
        while not self._stop.is_set():
            with self._cv:
                while not self._due and not self._stop.is_set():
                    self._cv.wait()
                if self._stop.is_set():
                    return
                namespace = next(iter(self._due))
                del self._due[namespace]
                self._busy = True
            try:
                self._run(namespace, self._stop)
            except Exception:  # logged; the marks stay for the next catch-up
                self.errors += 1
                log.exception("catch-up of %s failed; its memories wait for the next", namespace)
            finally:
                with self._cv:
                    self._busy = False
                    self._cv.notify_all()

    def close(self, timeout: float = 60.0) -> None:
        self._stop.set()
        with self._cv:
            self._cv.notify_all()
        self._thread.join(timeout)


def drain(
    store: Store,
    embedder: Embedder,
    namespace: str,
    coord: Coordination,
    *,
    timeout: float | None = None,
    batch: int = BATCH,
    chunk_chars: int = CHUNK_CHARS,
    on_progress: Callable[[int, int], None] | None = None,
) -> CatchUpReport:
    """Until nothing waits in ``namespace`` (or ``timeout`` passes): catch up here, or, while
    another process or thread holds the namespace's catch-up, wait for it and report its
    progress. ``embedded`` counts what got its vectors meanwhile, by whoever."""
    deadline = None if timeout is None else time.monotonic() + timeout
    total = pending(store, namespace)
    mine = CatchUpReport(namespace=namespace)
    started = time.perf_counter()
    while True:
        left = deadline - time.monotonic() if deadline is not None else None
        report = catch_up(
            store,
            embedder,
            namespace,
            batch=batch,
            chunk_chars=chunk_chars,
            coord=coord,
            stop=_deadline_event(left) if left is not None else None,
            on_progress=(lambda done, n: on_progress(total - n + done, total))
            if on_progress
            else None,
        )
        mine.embedded += report.embedded
        mine.chunks += report.chunks
        mine.facts += report.facts
        mine.entities += report.entities
        mine.missing += report.missing
        mine.left = report.left
        if on_progress is not None:
            on_progress(total - report.left, max(total, total - report.left))
        if not report.left or (deadline is not None and time.monotonic() >= deadline):
            break
        if report.busy:
            time.sleep(0.25)
    mine.seconds = time.perf_counter() - started
    mine.embedded = max(mine.embedded, total - mine.left)  # by whoever caught up
    return mine


def _deadline_event(seconds: float) -> threading.Event:
    """An event set after ``seconds`` (a catch-up stops between batches when it is)."""
    event = threading.Event()
    if seconds <= 0:
        event.set()
    else:
        timer = threading.Timer(seconds, event.set)
        timer.daemon = True
        timer.start()
    return event
