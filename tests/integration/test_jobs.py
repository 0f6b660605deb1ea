"""The in-process job queue of ``memvault serve``: results by id, bounded memory, the
scheduled check."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder
from memvault.errors import NotFoundError
from memvault.jobs import InProcessJobs
from tests import maya


def test_jobs_report_results_and_forget_the_oldest_beyond_the_cap(tmp_path: Path) -> None:
    vault = MemVault.open(tmp_path / "j.db", embedder=HashingEmbedder())
    jobs = InProcessJobs(vault.c)
    jobs.KEEP = 2
    ids = [jobs.submit_dream("nobody", apply=True, force=False) for _ in range(4)]
    deadline = time.monotonic() + 30
    while jobs.status(ids[-1])["status"] != "done":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert jobs.status(ids[-1])["result"]["status"] == "skipped"  # gate shut: nothing there
    jobs.submit_dream("nobody", apply=True, force=False)
    with pytest.raises(NotFoundError):
        jobs.status(ids[0])
    jobs.close()
    vault.close()


def test_the_scheduled_check_dreams_only_namespaces_whose_gate_is_open(tmp_path: Path) -> None:
    start = datetime(2025, 1, 10, tzinfo=UTC)
    vault = MemVault.open(tmp_path / "s.db", embedder=HashingEmbedder(), clock=FixedClock(start))
    maya.write(vault, start, namespace="due")
    maya.write(vault, start, namespace="quiet", sessions=2)
    jobs = InProcessJobs(vault.c, interval_s=0.2)
    deadline = time.monotonic() + 30
    while not vault.dream_runs(namespace="due"):
        assert time.monotonic() < deadline, "the scheduler never dreamed the open namespace"
        time.sleep(0.05)
    jobs.close()
    assert vault.dream_runs(namespace="quiet") == []
    assert len(vault.dream_runs(namespace="due")) == 1  # later checks found the gate shut
    vault.close()


def test_a_dream_starts_within_one_job_of_a_thousand_queued_prefetches(tmp_path: Path) -> None:
    """Fairness on the single in-process worker: while it runs one job, 1,000 prefetch jobs
    and then a dream are queued; the dream is the next job to run. The prefetch lane keeps
    only its newest (bounded) and reports the rest as dropped; none is lost."""
    from concurrent.futures import Future

    start = datetime(2025, 1, 10, tzinfo=UTC)
    vault = MemVault.open(tmp_path / "f.db", embedder=HashingEmbedder(), clock=FixedClock(start))
    maya.write(vault, start, namespace="maya")
    jobs = InProcessJobs(vault.c, prefetch_limit=50)
    jobs.KEEP = 5000  # remember every job's status for the counts below
    running = threading.Event()
    release = threading.Event()

    def busy() -> dict[str, Any]:
        running.set()
        release.wait(60)
        return {}

    jobs.lanes.put_dream((Future(), busy))  # the job the worker is in when the rest arrives
    assert running.wait(30)
    finished: list[str] = []  # job ids in the order the worker finished them

    def track(job_id: str) -> str:
        jobs._jobs[job_id][1].add_done_callback(lambda f: finished.append(job_id))
        return job_id

    ids = [track(jobs.submit_prefetch("maya", f"s{i}")) for i in range(1000)]
    assert jobs.depth() == {"dream": 0, "prefetch": 50}
    dream = track(jobs.submit_dream("maya", apply=True, force=True))
    release.set()
    deadline = time.monotonic() + 60
    while jobs.status(dream)["status"] != "done":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    again = jobs.submit_dream("maya", apply=True, force=True)  # the gate shut behind the first
    while jobs.status(again)["status"] != "done":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    gate = jobs.status(again)["result"]["gate"]  # forced open, the reasons say why it was shut
    assert gate["open"] and gate["forced"] and gate["reasons"]
    ran_before = [
        i for i in finished[: finished.index(dream)] if jobs.status(i)["status"] == "done"
    ]
    assert ran_before == [], f"{len(ran_before)} prefetch jobs ran before the queued dream"
    jobs.close()
    assert jobs.depth() == {"dream": 0, "prefetch": 0}
    statuses = [jobs.status(i)["status"] for i in ids]
    assert set(statuses) <= {"done", "dropped"}  # each one ran or was dropped, none lost
    assert statuses.count("dropped") == jobs.lanes.dropped >= 950  # the bound kept the newest
    vault.close()


def test_a_newer_prefetch_of_a_session_replaces_the_queued_one(tmp_path: Path) -> None:
    from concurrent.futures import Future

    from memvault.jobs import Lanes

    lanes = Lanes(prefetch_limit=10)
    first: Future[dict[str, Any]] = Future()
    second: Future[dict[str, Any]] = Future()
    lanes.put_prefetch(("maya", "s1"), (first, dict))
    lanes.put_prefetch(("maya", "s1"), (second, dict))
    assert first.cancelled() and not second.cancelled()
    assert lanes.depth() == {"dream": 0, "prefetch": 1}
    dream: Future[dict[str, Any]] = Future()
    lanes.put_dream((dream, dict))
    assert lanes.get() == (dream, dict)  # dreams first, whatever was queued before
