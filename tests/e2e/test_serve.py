"""``memvault serve`` as a user runs it: a process, a port, an admin key; and refused
without one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from memvault.devservers import free_port
from tests.http import ADMIN, SECRET

MEMVAULT = str(Path(sys.executable).parent / "memvault")  # the console script users run


def env(tmp_path: Path, **extra: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("MEMVAULT_")}
    return out | {"MEMVAULT_DATA_DIR": str(tmp_path), "MEMVAULT_EMBEDDER": "hashing", **extra}


def test_serve_answers_over_http_with_in_process_jobs(tmp_path: Path) -> None:
    port = free_port()
    admin = ADMIN
    proc = subprocess.Popen(
        [MEMVAULT, "serve", "--port", str(port)],
        env=env(tmp_path, MEMVAULT_SERVER__ADMIN_KEY=admin, MEMVAULT_SECRET_KEY=SECRET),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"{url}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                assert proc.poll() is None and time.monotonic() < deadline, "serve did not start"
                time.sleep(0.2)
        assert health.json() == {"status": "ok", "store": "ok", "jobs": "ok"}
        with httpx.Client(base_url=url, headers={"X-API-Key": admin}) as c:
            w = c.post("/v1/ns/ana/episodes", json={"items": [{"content": "I live in Porto."}]})
            assert w.status_code == 201
            hits = c.post("/v1/ns/ana/recall", json={"query": "Porto"}).json()["hits"]
            assert "Porto" in hits[0]["text"]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)


def test_serve_refuses_to_start_without_an_admin_key(tmp_path: Path) -> None:
    done = subprocess.run(
        [MEMVAULT, "serve", "--port", str(free_port())],
        env=env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "MEMVAULT_SERVER__ADMIN_KEY" in done.stderr + done.stdout


def test_serve_refuses_default_short_or_shared_secrets(tmp_path: Path) -> None:
    for extra, complaint in (
        ({"MEMVAULT_SERVER__ADMIN_KEY": ADMIN}, "MEMVAULT_SECRET_KEY is a well-known default"),
        ({"MEMVAULT_SERVER__ADMIN_KEY": "x", "MEMVAULT_SECRET_KEY": SECRET}, "1 characters"),
        ({"MEMVAULT_SERVER__ADMIN_KEY": SECRET, "MEMVAULT_SECRET_KEY": SECRET}, "must differ"),
    ):
        done = subprocess.run(
            [MEMVAULT, "serve", "--port", str(free_port())],
            env=env(tmp_path, **extra),
            capture_output=True,
            text=True,
            timeout=60,
        )
        said = " ".join((done.stderr + done.stdout).split())
        assert done.returncode == 2, said
        assert complaint in said and "secrets.token_urlsafe(32)" in said
