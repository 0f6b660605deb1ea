"""The undo promise at every instant: a `dream --apply` killed (SIGKILL, from a test hook at
a chunk boundary, not a timer) can be undone exactly, or resumed and then undone exactly."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memvault import MemVault
from memvault.changes.docs import PROGRESS, RUN
from memvault.embed import HashingEmbedder
from tests import maya

START = datetime(2024, 1, 1, tzinfo=UTC)
DREAM_AT = START + timedelta(days=400)
ENV = {"MEMVAULT_EMBEDDER": "hashing", "MEMVAULT_DREAM__CONSOLIDATE__APPLY_CHUNK": "5"}

# The dream of this history applies 15 changes, so 3 chunks of 5: the kill comes right after
# chunk K commits (K = 3: all chunks in, the run document not yet marked applied).
KILLED_APPLY = textwrap.dedent(
    """
    import os, signal, sys
    from datetime import datetime
    from memvault import MemVault

    kill_after = int(sys.argv[2])

    def hook(chunks_done):
        if chunks_done == kill_after:
            os.kill(os.getpid(), signal.SIGKILL)

    vault = MemVault.open(sys.argv[1])
    vault.dreamer.dream(
        "maya", now=datetime.fromisoformat(sys.argv[3]), apply=True, force=True, on_chunk=hook
    )
    print("not killed")
    """
)


def _open(db: Path) -> MemVault:
    return MemVault.open(db, embedder=HashingEmbedder(), dream={"consolidate": {"apply_chunk": 5}})


def _dump(vault: MemVault) -> str:
    out = io.StringIO()
    vault.export(out, namespace="maya")
    return out.getvalue()


def _history(db: Path) -> str:
    with _open(db) as vault:
        maya.write(vault, START, namespace="maya")
        for i in range(8):
            vault.write(
                f"Note {i}: the standup moved to room {i}.",
                speaker="Maya",
                session_id=f"x{i}",
                namespace="maya",
                now=START + timedelta(days=10 + i),
            )
        return _dump(vault)


def _killed_apply(db: Path, after_chunk: int) -> str:
    done = subprocess.run(
        [sys.executable, "-c", KILLED_APPLY, str(db), str(after_chunk), DREAM_AT.isoformat()],
        env={**os.environ, **ENV},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == -signal.SIGKILL, done.stdout + done.stderr
    with _open(db) as vault:
        (run,) = vault.store.list_docs("maya", RUN)
        (progress,) = vault.store.get_docs("maya", PROGRESS, [run.id])
    assert run.status == "applying"
    assert progress.body["chunks_done"] == after_chunk
    return run.id


@pytest.mark.parametrize("after_chunk", [1, 2, 3])
def test_undo_of_a_killed_apply_restores_the_dump_exactly(tmp_path: Path, after_chunk: int) -> None:
    db = tmp_path / "v.db"
    before = _history(db)
    run_id = _killed_apply(db, after_chunk)
    with _open(db) as vault:
        assert _dump(vault) != before  # the committed chunks are in
        restored = vault.undo_dream(run_id, namespace="maya")
        assert restored == 5 * after_chunk
        assert _dump(vault) == before
        assert vault.dream_report(run_id, namespace="maya")["status"] == "undone"
        assert vault.resume_dreams(namespace="maya") == []  # an undone run is not resumed


@pytest.mark.parametrize("after_chunk", [1, 2, 3])
def test_resume_then_undo_of_a_killed_apply(tmp_path: Path, after_chunk: int) -> None:
    db = tmp_path / "v.db"
    before = _history(db)
    run_id = _killed_apply(db, after_chunk)
    with _open(db) as vault:
        assert vault.resume_dreams(namespace="maya") == [run_id]
        report = vault.dream_report(run_id, namespace="maya")
        assert report["status"] == "applied"
        assert report["applied"] == 15
        assert vault.undo_dream(run_id, namespace="maya") == 15
        assert _dump(vault) == before


def test_cli_undo_of_a_killed_apply_says_it_was_partial(tmp_path: Path) -> None:
    db = tmp_path / "v.db"
    before = _history(db)
    run_id = _killed_apply(db, 2)
    exe = Path(sys.executable).parent / "memvault"
    done = subprocess.run(
        [str(exe), "--db", str(db), "dream", "undo", run_id, "-n", "maya"],
        env={**os.environ, **ENV},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "restored 10 records" in done.stdout
    assert "partly applied" in done.stdout
    with _open(db) as vault:
        assert _dump(vault) == before
