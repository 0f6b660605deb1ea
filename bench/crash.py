"""The kill-9 matrix: SIGKILL a process at a random instant while it applies a dream, resumes
a half-applied one, or undoes one; then check that the vault is as before the run or as
after it, and that finishing the interrupted work and undoing the run gives back the dump
of before the run byte for byte.

Each trial starts from a copy of one vault (a history of N old notes, so the dream has N
changes to apply in chunks of C). The child process prints ``go`` just before the
operation; the kill comes after a random delay from that moment, drawn over the operation's
measured duration (so kills land inside it, at any instant, not only between chunks).

    .venv/bin/python bench/crash.py --trials 60 --notes 300 --chunk 20
"""

from __future__ import annotations

import argparse
import io
import json
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memvault import MemVault
from memvault.changes.docs import RUN
from memvault.embed import HashingEmbedder

NS = "crash"
START = datetime(2024, 1, 1, tzinfo=UTC)
DREAM_AT = START + timedelta(days=400)
CHILD = """
import sys
from datetime import datetime
from memvault import MemVault
from memvault.embed import HashingEmbedder

phase, db, at, chunk = sys.argv[1], sys.argv[2], datetime.fromisoformat(sys.argv[3]), sys.argv[4]
settings = {"consolidate": {"apply_chunk": int(chunk)}}
vault = MemVault.open(db, embedder=HashingEmbedder(), dream=settings)
print("go", flush=True)
if phase == "apply":
    vault.dream(namespace="crash", apply=True, force=True, now=at)
elif phase == "resume":
    vault.resume_dreams(namespace="crash")
else:
    run = vault.dream_runs(namespace="crash", limit=1)[0]["run_id"]
    vault.undo_dream(run, namespace="crash")
print("done", flush=True)
"""


def _open(db: Path, chunk: int) -> MemVault:
    return MemVault.open(
        db, embedder=HashingEmbedder(), dream={"consolidate": {"apply_chunk": chunk}}
    )


def _dump(vault: MemVault) -> str:
    out = io.StringIO()
    vault.export(out, namespace=NS)
    return out.getvalue()


def build(db: Path, notes: int, chunk: int) -> str:
    with _open(db, chunk) as vault:
        vault.write_many(
            [
                {
                    "content": f"Note {i}: the build of module {i} took {i % 17} minutes.",
                    "speaker": "Ana",
                    "session_id": f"s{i % 40}",
                    "occurred_at": (START + timedelta(hours=i)).isoformat(),
                }
                for i in range(notes)
            ],
            namespace=NS,
        )
        return _dump(vault)


def child(phase: str, db: Path, chunk: int, kill_after: float | None) -> tuple[bool, float]:
    """Run one phase in a child; kill it ``kill_after`` s after it says go. (killed, seconds)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, phase, str(db), DREAM_AT.isoformat(), str(chunk)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "go"
    started = time.perf_counter()
    if kill_after is not None:
        time.sleep(kill_after)
        proc.send_signal(signal.SIGKILL)
    proc.wait(600)
    return proc.returncode == -signal.SIGKILL, time.perf_counter() - started


def _run_status(db: Path, chunk: int) -> tuple[str | None, str | None]:
    with _open(db, chunk) as vault:
        runs = vault.store.list_docs(NS, RUN, limit=1)
        return (runs[0].id, runs[0].status) if runs else (None, None)


def trial(
    phase: str, base: Path, db: Path, before: str, after: str, chunk: int, spans: dict[str, float]
) -> dict[str, object]:
    for leftover in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        leftover.unlink(missing_ok=True)  # a stale WAL must never meet a fresh copy
    shutil.copy(base, db)
    rng_delay = random.uniform(0, spans[phase])
    if phase == "resume":  # first a killed apply, somewhere inside it
        child("apply", db, chunk, random.uniform(0, spans["apply"]))
    if phase == "undo":
        child("apply", db, chunk, None)
    killed, _ = child(phase, db, chunk, rng_delay)
    with _open(db, chunk) as vault:
        state = _dump(vault)
        run_id, status = _run_status(db, chunk)
        # undo is one transaction: before it, or done; apply and resume leave whole chunks
        consistent = state in (before, after) if phase == "undo" else True
        # finish what was interrupted, then undo: the vault must be as before the run
        if status == "applying":
            vault.resume_dreams(namespace=NS)
        if run_id is not None and _run_status(db, chunk)[1] != "undone":
            vault.undo_dream(run_id, namespace=NS)
        restored = _dump(vault) == before
    return {
        "phase": phase,
        "killed": killed,
        "status_after_kill": status,
        "ok": consistent and restored,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=60)
    parser.add_argument("--notes", type=int, default=300)
    parser.add_argument("--chunk", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    random.seed(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        base, db = Path(tmp) / "base.db", Path(tmp) / "trial.db"
        before = build(base, args.notes, args.chunk)
        shutil.copy(base, db)  # measure each phase once, unkilled, for the delay ranges
        spans = {"apply": child("apply", db, args.chunk, None)[1]}
        with _open(db, args.chunk) as vault:
            after = _dump(vault)
            changes = vault.dream_runs(namespace=NS, limit=1)[0]["applied"]
        spans["undo"] = child("undo", db, args.chunk, None)[1]
        spans["resume"] = spans["apply"]  # at most the whole apply is left to resume
        results = [
            trial(phase, base, db, before, after, args.chunk, spans)
            for phase in random.choices(["apply", "resume", "undo"], k=args.trials)
        ]
    phases = Counter(str(r["phase"]) for r in results)
    print(
        json.dumps(
            {
                "trials": len(results),
                "failures": sum(not r["ok"] for r in results),
                "killed_mid_operation": sum(bool(r["killed"]) for r in results),
                "phases": dict(phases),
                "status_after_kill": dict(Counter(str(r["status_after_kill"]) for r in results)),
                "changes_per_apply": changes,
                "chunk": args.chunk,
                "seconds": {k: round(v, 3) for k, v in spans.items()},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
