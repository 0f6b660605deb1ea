"""memvault.Client against a real `memvault serve` process: the SDK's method names and
return models, and the SDK's errors for the same bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from memvault import Client, Episode, Fact, MemVault
from memvault.client import AuthError
from memvault.devservers import free_port
from memvault.embed import HashingEmbedder
from memvault.errors import (
    CoordinationUnavailable,
    InvalidBatchError,
    InvalidInputError,
    NotFoundError,
)

MEMVAULT = str(Path(sys.executable).parent / "memvault")
SECRET = "client-test-secret-" + "Zq8r" * 8
ADMIN = "client-test-admin-" + "Lm3w" * 8


@pytest.fixture
def served(tmp_path: Path) -> Iterator[dict[str, Any]]:
    port = free_port()
    log = tmp_path / "stderr.log"
    env = {
        **os.environ,
        "MEMVAULT_DB_PATH": str(tmp_path / "v.db"),
        "MEMVAULT_EMBEDDER": "hashing",
        "MEMVAULT_SECRET_KEY": SECRET,
        "MEMVAULT_SERVER__ADMIN_KEY": ADMIN,
        "HF_HUB_OFFLINE": "1",
        "MEMVAULT_SERVER__JSON_LOGS": "true",
    }
    err = log.open("w")
    proc = subprocess.Popen(
        [MEMVAULT, "serve", "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=err
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.2)
    keys = httpx.post(
        f"{url}/v1/keys",
        json={"name": "maya agent", "namespaces": ["maya"]},
        headers={"Authorization": f"Bearer {ADMIN}"},
    ).json()
    yield {"url": url, "key": keys["key"], "db": tmp_path / "v.db", "log": log}
    proc.terminate()
    proc.wait(timeout=10)
    err.close()


def test_the_client_speaks_like_the_sdk(served: dict[str, Any]) -> None:
    with Client(served["url"], served["key"], namespace="maya") as mv:
        e = mv.write("I moved to Lisbon last week.", speaker="Maya")
        assert isinstance(e, Episode) and e.content == "I moved to Lisbon last week."
        facts = mv.add_facts([{"subject": "Maya", "predicate": "works_at", "object": "Helio Labs"}])
        assert isinstance(facts[0], Fact) and facts[0].object == "Helio Labs"
        hits = mv.recall("where does Maya live?", k=5)
        assert hits and "Lisbon" in hits[0].text and hits[0].explanation.factors.score > 0
        assert mv.record_access([e.id]) == 1
        assert mv.get_episode(e.id).access_count == 1
        assert mv.stats()["episodes"] == 1
        assert [x.id for x in mv.episodes()] == [e.id]
        plan = mv.dream(force=True)
        assert plan["status"] == "planned"
        assert mv.review_items() == [] and isinstance(mv.inbox(), list)
        assert "text" in mv.primer(budget_tokens=200)
    lines = [json.loads(x) for x in served["log"].read_text().splitlines() if x.startswith("{")]
    recall = [x for x in lines if x.get("route") == "/v1/ns/{namespace}/recall"]
    assert recall and recall[0]["status"] == 200 and recall[0]["namespace"] == "maya"


def test_the_client_raises_the_sdk_s_errors(served: dict[str, Any], tmp_path: Path) -> None:
    with (
        MemVault.open(tmp_path / "local.db", embedder=HashingEmbedder()) as local,
        pytest.raises(InvalidInputError) as sdk,
    ):
        local.recall("   ")
    with Client(served["url"], served["key"], namespace="maya") as mv:
        with pytest.raises(InvalidInputError) as remote:
            mv.recall("   ")
        assert remote.value.field == sdk.value.field == "query"
        with pytest.raises(NotFoundError):
            mv.get_episode("no-such-id")
        with pytest.raises(NotFoundError):
            mv.judge(["no-such-id"], "access")
        with pytest.raises(InvalidBatchError) as batch:
            mv.write_many([{"content": "fine"}, {"content": ""}])
        assert batch.value.problems and mv.stats()["episodes"] == 0  # all or nothing
        with pytest.raises(NotFoundError):  # another key's namespace is not even seen
            mv.stats(namespace="someone-else")
        when = datetime(2025, 1, 1, tzinfo=UTC)
        assert mv.facts(as_of=when) == []
    with Client(served["url"], "mvk_wrong_key") as bad, pytest.raises(AuthError) as who:
        bad.stats(namespace="maya")
    assert who.value.status == 401


def test_a_503_is_retried_with_backoff() -> None:
    """The retry policy alone, against a transport that answers 503 twice: a real 503 needs
    the coordination store to fail between two requests, which no test here can time."""
    calls = []

    def flaky(request: httpx.Request) -> httpx.Response:
        calls.append(time.monotonic())
        if len(calls) < 3:
            return httpx.Response(503, json={"error": {"type": "unavailable", "message": "down"}})
        return httpx.Response(200, json={"namespace": "maya", "episodes": 0})

    mv = Client(
        "http://x", "k", namespace="maya", backoff_s=0.01, transport=httpx.MockTransport(flaky)
    )
    assert mv.stats()["episodes"] == 0 and len(calls) == 3
    assert calls[2] - calls[1] >= calls[1] - calls[0]  # it waits longer each time
    down = httpx.MockTransport(lambda r: httpx.Response(503, json={}))
    gone = Client("http://x", "k", namespace="maya", retries=1, backoff_s=0.01, transport=down)

    with pytest.raises(CoordinationUnavailable):
        gone.stats()


def test_mcp_in_front_of_a_remote_vault(served: dict[str, Any]) -> None:
    import asyncio

    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    args = ["mcp", "--url", served["url"], "--key", served["key"], "-n", "maya"]
    params = StdioServerParameters(command=MEMVAULT, args=args, env=dict(os.environ))

    async def session() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            wrote = await s.call_tool(
                "write", {"content": "Maya runs on Tuesdays.", "speaker": "Maya"}
            )
            assert not wrote.isError, wrote.content
            hits = await s.call_tool("recall", {"query": "when does Maya run?"})
            assert "Tuesdays" in hits.content[0].text
            bad = await s.call_tool("facts", {"as_of": "not a date"})
            assert bad.isError and "as_of" in bad.content[0].text

    asyncio.run(session())
    with Client(served["url"], served["key"], namespace="maya") as mv:
        assert [e.content for e in mv.episodes()] == ["Maya runs on Tuesdays."]
    refused = subprocess.run(
        [MEMVAULT, "mcp", "--url", served["url"], "-n", "maya"],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "MEMVAULT_API_KEY"},
        timeout=60,
    )
    assert refused.returncode == 2 and "--key" in refused.stderr
