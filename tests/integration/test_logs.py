"""Logs a machine can read (``server.json_logs``): every line is one JSON object with an ISO
time, a level and the logger; API lines carry a request id (the caller's, when it is a plain
token, echoed in ``X-Request-ID``); a dream job's line carries its run id. Real HTTP."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.app import create_app
from memvault import FixedClock, MemVault, jobs, logs
from memvault.embed import HashingEmbedder
from memvault.jobs import InProcessJobs
from tests.http import ADMIN, SECRET, serving

NOW = datetime(2026, 3, 1, tzinfo=UTC)


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    buf = io.StringIO()
    yield buf
    for name in logs.ROOTS:  # leave no handler writing into a closed buffer
        logger = logging.getLogger(name)
        for h in [h for h in logger.handlers if h.get_name() == logs.HANDLER]:
            logger.removeHandler(h)


def lines(buf: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in buf.getvalue().splitlines() if line.strip()]


def test_api_lines_are_json_with_time_level_and_a_request_id(
    tmp_path: Path, captured: io.StringIO
) -> None:
    vault = MemVault.open(
        tmp_path / "v.db",
        embedder=HashingEmbedder(),
        clock=FixedClock(NOW),
        secret_key=SECRET,
        server={"admin_key": ADMIN, "json_logs": True},
    )
    app = create_app(vault, InProcessJobs(vault.c))
    logs.configure(stream=captured)  # the app configured stderr; the same chain, captured
    auth = {"Authorization": f"Bearer {ADMIN}"}
    with serving(app) as url, httpx.Client(base_url=url, headers=auth) as c:
        mine = c.post(
            "/v1/ns/maya/episodes",
            json={"items": [{"content": "I moved to Porto."}]},
            headers={"X-Request-ID": "trace-42"},
        )
        made_up = c.post("/v1/ns/maya/recall", json={"query": "where"}, headers={
            "X-Request-ID": "<script>alert(1)</script> and more"
        })  # fmt: skip
        refused = c.get("/v1/ns/maya/episodes/nope")
    vault.close()
    assert mine.headers["x-request-id"] == "trace-42"
    generated = made_up.headers["x-request-id"]
    assert generated != "<script>alert(1)</script> and more" and len(generated) == 32
    requests = [x for x in lines(captured) if x["event"] == "request"]
    assert [x["request_id"] for x in requests] == [
        "trace-42",
        generated,
        refused.headers["x-request-id"],
    ]
    for x in requests:
        assert x["level"] == "info" and x["logger"] == "memvault.requests"
        assert datetime.fromisoformat(x["time"].replace("Z", "+00:00")).tzinfo is not None
    assert [x["status"] for x in requests] == [mine.status_code, 200, 404]
    assert requests[0]["route"] == "/v1/ns/{namespace}/episodes"  # the template, not the path
    assert requests[0]["namespace"] == "maya"


def test_a_dream_job_line_carries_its_run_id(tmp_path: Path, captured: io.StringIO) -> None:
    logs.configure(stream=captured)
    with MemVault.open(tmp_path / "d.db", embedder=HashingEmbedder(), clock=FixedClock(NOW)) as v:
        v.write("I moved to Porto.", namespace="maya")
        out = jobs.dream_namespace(v.c, "maya", force=True)
        logging.getLogger("memvault.vault").warning("a plain logging call")
    job = next(x for x in lines(captured) if x["event"] == "dream_job")
    assert job["run_id"] == out["run_id"] and job["namespace"] == "maya"
    assert job["status"] == "applied" and job["level"] == "info" and "time" in job
    plain = next(x for x in lines(captured) if x["event"] == "a plain logging call")
    assert plain["level"] == "warning" and plain["logger"] == "memvault.vault"
