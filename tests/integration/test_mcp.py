"""The MCP server as agents meet it: the official SDK's client against a real `memvault mcp`
process, over stdio and over streamable HTTP (where every request needs a key of the
namespace)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from api.auth import KeyStore
from memvault import MemVault
from memvault.devservers import free_port
from memvault.embed import HashingEmbedder

MEMVAULT = str(Path(sys.executable).parent / "memvault")
SECRET = "mcp-test-secret-" + "x7Qp" * 8


def env(db: Path) -> dict[str, str]:
    return {
        **os.environ,
        "MEMVAULT_DB_PATH": str(db),
        "MEMVAULT_EMBEDDER": "hashing",
        "MEMVAULT_SECRET_KEY": SECRET,
        "HF_HUB_OFFLINE": "1",
    }


def text(result: Any) -> Any:
    return json.loads(result.content[0].text) if result.content else None


def test_an_agent_lists_tools_writes_and_recalls_over_stdio(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=MEMVAULT, args=["mcp", "-n", "maya"], env=env(tmp_path / "v.db")
    )

    async def session() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            tools = {t.name for t in (await s.list_tools()).tools}
            assert {"recall", "write", "add_fact", "feedback", "facts", "inbox", "review_list",
                    "review_decide", "primer", "attitudes"} <= tools  # fmt: skip
            wrote = await s.call_tool(
                "write", {"content": "I moved to Lisbon last week.", "speaker": "Maya"}
            )
            assert not wrote.isError
            episode = text(wrote)["episode_id"]
            hits = await s.call_tool("recall", {"query": "where does Maya live?"})
            found = [json.loads(c.text) for c in hits.content]  # one content item per hit
            found = [h for item in found for h in (item if isinstance(item, list) else [item])]
            assert "Lisbon" in found[0]["text"]  # the fact extracted from it, then the turn
            assert episode in [h["id"] for h in found]
            used = await s.call_tool("feedback", {"ids": [episode], "signal": "access"})
            assert not used.isError
            bad = await s.call_tool("feedback", {"ids": ["nope"], "signal": "access"})
            assert bad.isError and "nope" in bad.content[0].text  # a tool error, not a crash
            worse = await s.call_tool("recall", {"query": "x", "as_of": "not a date"})
            assert worse.isError and "as_of" in worse.content[0].text
            stats = await s.read_resource("memvault://stats")  # type: ignore[arg-type]
            assert json.loads(stats.contents[0].text)["namespace"] == "maya"  # type: ignore[union-attr]

    asyncio.run(session())
    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder()) as vault:
        assert vault.stats(namespace="maya")["episodes"] == 1  # written where it should be


@pytest.fixture
def http_server(tmp_path: Path) -> Any:
    db = tmp_path / "v.db"
    with MemVault.open(db, embedder=HashingEmbedder(), secret_key=SECRET) as vault:
        keys = KeyStore(vault.store, SECRET, None)
        now = datetime.now(UTC)
        maya, _ = keys.create("maya agent", ["maya"], admin=False, now=now)
        other, _ = keys.create("other agent", ["other"], admin=False, now=now)
        reader, _ = keys.create("reader", ["maya"], admin=False, now=now, scope="read")
    port = free_port()
    proc = subprocess.Popen(
        [MEMVAULT, "mcp", "-n", "maya", "--http", "--port", str(port)],
        env={**env(db), "MEMVAULT_SERVER__AUTH_MAX_FAILURES": "4"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.post(url, timeout=1)
            break
        except httpx.TransportError:
            time.sleep(0.2)
    yield {"url": url, "maya": maya, "other": other, "reader": reader}
    proc.terminate()
    proc.wait(timeout=10)


def test_http_needs_a_key_of_the_namespace(http_server: dict[str, str]) -> None:
    url = http_server["url"]
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"Accept": "application/json, text/event-stream"}
    assert httpx.post(url, json=ping, headers=headers).status_code == 401
    wrong = {**headers, "Authorization": "Bearer mvk_nope_nope"}
    assert httpx.post(url, json=ping, headers=wrong).status_code == 401
    other = {**headers, "Authorization": f"Bearer {http_server['other']}"}
    refused = httpx.post(url, json=ping, headers=other)
    assert refused.status_code == 403 and "maya" in refused.text

    fact = {
        "subject": "Maya",
        "predicate": "lives_in",
        "object": "Lisbon",
        "valid_at": "2025-06-15",
    }
    _, facts = asyncio.run(
        _tools(url, http_server["maya"], [("add_fact", fact), ("facts", {"predicate": "lives_in"})])
    )
    assert "Lisbon" in facts.content[0].text


async def _tools(url: str, key: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Call tools in one streamable-HTTP session with ``key``; their results in order."""
    auth = {"Authorization": f"Bearer {key}"}
    async with (
        httpx.AsyncClient(headers=auth, timeout=30) as client,
        streamable_http_client(url, http_client=client) as (read, write, _),
        ClientSession(read, write) as s,
    ):
        await s.initialize()
        return [await s.call_tool(name, args) for name, args in calls]


def test_a_read_only_key_recalls_but_cannot_write_or_forget(http_server: dict[str, str]) -> None:
    url = http_server["url"]
    recall = ("recall", {"query": "gate code"})
    wrote, hits = asyncio.run(
        _tools(url, http_server["maya"], [("write", {"content": "The gate code is 2291."}), recall])
    )  # a write key: writes
    episode = text(wrote)["episode_id"]
    assert episode in hits.content[0].text
    headers = {
        "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {http_server['reader']}",
    }
    for tool, args in (("forget", {"episode_id": episode}), ("write", {"content": "x"})):
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": tool, "arguments": args}}  # fmt: skip
        refused = httpx.post(url, json=call, headers=headers)
        assert refused.status_code == 403 and "may only read" in refused.text, tool
    batch = [{"jsonrpc": "2.0", "id": 3, "method": "ping"},
             {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
              "params": {"name": "correct", "arguments": {}}}]  # fmt: skip
    assert httpx.post(url, json=batch, headers=headers).status_code == 403
    (read,) = asyncio.run(_tools(url, http_server["reader"], [recall]))
    assert not read.isError and episode in read.content[0].text  # still there, readable


def test_http_throttles_a_client_that_keeps_guessing(http_server: dict[str, str]) -> None:
    """The REST API's brake on every door: after 4 wrong keys (the setting) the address is
    answered 429 with Retry-After before its key is looked at; the namespace's own agent,
    whose key already worked from here, is not locked out."""
    url = http_server["url"]
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"Accept": "application/json, text/event-stream"}
    mine = {**headers, "Authorization": f"Bearer {http_server['maya']}"}
    gated = (401, 403, 429)  # past the gate, the MCP app answers (400: no session yet)
    assert httpx.post(url, json=ping, headers=mine).status_code not in gated
    codes = [
        httpx.post(url, json=ping, headers={**headers, "X-API-Key": f"mvk_guess_{i}"}).status_code
        for i in range(6)
    ]
    assert codes[:4] == [401] * 4 and codes[4:] == [429, 429]
    blocked = httpx.post(url, json=ping, headers={**headers, "X-API-Key": "mvk_guess_9"})
    assert int(blocked.headers["Retry-After"]) > 0
    assert httpx.post(url, json=ping, headers=mine).status_code not in gated


@pytest.mark.parametrize(
    ("host", "override", "problem"),
    [
        ("0.0.0.0", {"MEMVAULT_SECRET_KEY": "change-me"}, "well-known default"),
        ("127.0.0.1", {"MEMVAULT_SECRET_KEY": "short-secret"}, "needs at least 32"),
        ("127.0.0.1", {"MEMVAULT_SECRET_KEY": "a" * 40}, "predictable"),
        ("127.0.0.1", {"MEMVAULT_SERVER__ADMIN_KEY": "admin"}, "ADMIN_KEY is a well-known"),
        ("127.0.0.1", {"MEMVAULT_SERVER__ADMIN_KEY": SECRET}, "must differ"),
    ],
)
def test_http_refuses_weak_secrets_on_any_address(
    tmp_path: Path, host: str, override: dict[str, str], problem: str
) -> None:
    run = subprocess.run(
        [MEMVAULT, "mcp", "--http", "--host", host, "--port", str(free_port())],
        env={**env(tmp_path / "v.db"), **override},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and problem in " ".join(run.stderr.split()), run.stderr
