"""A ChatGPT or Claude export imported over real HTTP (``POST /v1/ns/{namespace}/imports/
chat-export``): the same reader and checks as ``memvault ingest`` (tests/e2e/
test_chat_exports.py), all or nothing with every problem listed, a dry run that writes
nothing, a second import that writes nothing twice, a .zip body, and what is no export."""

from __future__ import annotations

import asyncio
import io
import json
import zipfile
from pathlib import Path

import pytest

from memvault import AsyncClient, Client, MemVault
from memvault.errors import InvalidBatchError
from tests.e2e.test_chat_exports import chatgpt_export, claude_export
from tests.integration.conftest import Server

URL = "/v1/ns/maya/imports/chat-export"


def _count(c: object, ns: str = "maya") -> int:
    r = c.get(f"/v1/ns/{ns}/episodes", params={"limit": 500})  # type: ignore[attr-defined]
    return len(r.json()["items"]) if r.status_code == 200 else 0


def test_an_export_is_previewed_refused_whole_then_written_once(server: Server) -> None:
    key = server.key("maya")
    body = json.dumps(chatgpt_export()).encode()
    with server.client(key) as c:
        dry = c.post(URL, content=body, params={"dry_run": True, "speaker": "Maya"})
        assert dry.status_code == 200, dry.text
        report = dry.json()
        assert (report["would_write"], report["already_here"], len(report["problems"])) == (5, 0, 2)
        assert report["format"] == "chatgpt" and report["left_out"]["calls to a tool"] == 1
        assert _count(c) == 0  # nothing written

        refused = c.post(URL, content=body)  # two conversations cannot be read: nothing
        assert refused.status_code == 422
        places = [d["where"] for d in refused.json()["error"]["details"]]
        assert places == ["conversation 2 ('Untimed') message 1", "conversation 3 ('Broken')"]
        assert "skip_invalid" in refused.json()["error"]["hint"]
        assert _count(c) == 0

        done = c.post(URL, content=body, params={"skip_invalid": True, "speaker": "Maya"})
        assert done.status_code == 201, done.text
        assert (done.json()["written"], len(done.json()["problems"])) == (5, 2)
        assert _count(c) == 5
        facts = c.get("/v1/ns/maya/facts", params={"subject": "Maya"}).json()["items"]
        assert any(f["object"] == "Porto" for f in facts)  # read like any other write

        again = c.post(URL, content=body, params={"skip_invalid": True})
        assert (again.json()["written"], again.json()["already_here"]) == (0, 5)
        assert _count(c) == 5


def test_a_claude_export_in_its_zip(server: Server) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("conversations.json", json.dumps(claude_export()))
    with server.client(server.key("maya")) as c:
        r = c.post(URL, content=buf.getvalue(), headers={"content-type": "application/zip"})
        assert r.status_code == 201, r.text
        assert r.json()["format"] == "claude" and r.json()["written"] == _count(c) > 0


def test_what_is_no_export_is_refused_saying_what_is_read(server: Server) -> None:
    with server.client(server.key("maya")) as c:
        r = c.post(URL, json=[{"content": "a JSONL record is no conversation"}])
        assert r.status_code == 422
        assert "not a ChatGPT or Claude export" in r.json()["error"]["message"]
        r = c.post(URL, content=b"{not json")
        assert r.status_code == 422 and r.json()["error"]["type"] == "invalid_input"
        r = c.post(URL, json=chatgpt_export(), params={"format": "gemini"})
        assert r.status_code == 422 and r.json()["error"]["field"] == "format"
        big = json.dumps(chatgpt_export() * 200).encode()  # over the server's body limit
        r = c.post(URL, content=big)
        assert r.status_code == 413 and r.json()["error"]["type"] == "too_large"
        assert _count(c) == 0
    with server.client(server.key("bob")) as other:  # a key for another namespace
        assert other.post(URL, json=chatgpt_export()).status_code == 404


def test_the_clients_import_an_export_as_the_sdk_does(server: Server, tmp_path: Path) -> None:
    """``Client`` and ``AsyncClient`` send the file as it is; the embedded SDK reads the same
    bytes the same way (``vault.import_chat_export``): one report, all or nothing alike."""
    raw = json.dumps(chatgpt_export()).encode()
    key = server.key("maya", "ana")
    with Client(server.url, key, namespace="maya") as c:
        with pytest.raises(InvalidBatchError) as refused:
            c.import_chat_export(raw)
        assert len(refused.value.problems) == 2
        remote = c.import_chat_export(raw, user="Maya", skip_invalid=True)

    async def twice() -> dict:
        async with AsyncClient(server.url, key, namespace="ana") as a:
            await a.import_chat_export(raw, user="Maya", skip_invalid=True)
            return await a.import_chat_export(raw, user="Maya", skip_invalid=True)

    again = asyncio.run(twice())
    with MemVault.open(tmp_path / "local.db") as vault:
        local = vault.import_chat_export(raw, namespace="maya", user="Maya", skip_invalid=True)
    assert remote == local and remote["written"] == 5
    assert (again["written"], again["already_here"]) == (0, 5)
