"""The in-process job queue of ``memvault serve``: results by id, bounded memory, the
scheduled check."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

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
