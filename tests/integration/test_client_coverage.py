"""Client and AsyncClient cover every operation the registry does not mark local-only
(issue 29): each new remote operation gives what the SDK gives on the same vault, through real
HTTP, blocking and awaited."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from memvault import AsyncClient, Client, MemVault
from memvault.capabilities.registry import OPERATIONS
from memvault.changes.docs import DISCOVERY
from memvault.errors import NotFoundError
from memvault.kg.store import Batch, Doc
from tests.http import ADMIN
from tests.integration.conftest import Server, turns


def _both(server: Server, key: str, ns: str, call: Callable[[Any], Any]) -> tuple[Any, Any]:
    """``call`` through the blocking client and through the async one."""
    with Client(server.url, key, namespace=ns) as c:
        blocking = call(c)

    async def go() -> Any:
        async with AsyncClient(server.url, key, namespace=ns) as c:
            out = call(c)
            return await out if isinstance(out, Awaitable) else out

    return blocking, asyncio.run(go())


def test_every_remote_operation_is_on_both_clients() -> None:
    missing = [op.name for op in OPERATIONS if not op.local and not op.client]
    assert missing == []
    for op in OPERATIONS:
        if op.client:
            assert callable(getattr(Client, op.name)) and callable(getattr(AsyncClient, op.name))


def test_reads_and_dry_runs_agree_with_the_sdk(server: Server) -> None:
    vault: MemVault = server.vault
    key = server.key("maya")
    vault.write_many(turns(), namespace="maya")
    vault.recall("where does Maya live?", namespace="maya")
    run = vault.dream(namespace="maya", apply=True, force=True)

    def same(call: Callable[[Any], Any], sdk: Any, pick: str | None = None) -> None:
        expected = json.loads(json.dumps(sdk, default=str))  # what JSON makes of tuples, dates
        blocking, awaited = _both(server, key, "maya", call)
        if pick:
            blocking, awaited = blocking[pick], awaited[pick]
        assert blocking == expected and awaited == expected

    same(lambda c: c.profile(), vault.profile(namespace="maya"))
    day = vault.now().date().isoformat()
    same(lambda c: c.diary(date=day), vault.diary(date=day, namespace="maya"))
    same(lambda c: c.dream_report(run.run_id), vault.dream_report(run.run_id, namespace="maya"))
    same(lambda c: c.tiers(), vault.tiers(namespace="maya"))
    same(lambda c: c.janitor(), vault.janitor(namespace="maya"))
    folded = vault.fold(namespace="maya")
    same(lambda c: c.fold(), folded.per_type, pick="types")
    lint = vault.lint(namespace="maya", levels=["structure"])
    found = lint.json(100)["findings"]
    same(lambda c: c.lint(levels=["structure"]), found, pick="findings")
    # an inbox item as the dream's discovery stage writes one (Maya's history has no bridge)
    found = Doc(DISCOVERY, "d1", {"kind": "bridge", "why": "Tobias links two groups"}, "unseen")
    vault.store.apply(Batch(namespace="maya", docs=[found]))
    items = [i["id"] for i in vault.inbox(namespace="maya")]
    same(lambda c: c.mark_seen(items[:1]), 1)
    same(lambda c: c.mark_dismissed(items[:1]), 1)
    assert vault.inbox(namespace="maya", status="dismissed")[0]["id"] == items[0]
    with (
        Client(server.url, key, namespace="maya") as c,
        pytest.raises(NotFoundError, match="no inbox item with id 'ghost'"),
    ):
        c.mark_seen(["ghost"])

    async def ghost() -> None:
        async with AsyncClient(server.url, key, namespace="maya") as c:
            await c.mark_dismissed(["ghost"])

    with pytest.raises(NotFoundError, match="no inbox item with id 'ghost'"):
        asyncio.run(ghost())


def _plain(answer: dict[str, Any]) -> Any:
    """An answer as JSON, without what differs between namespaces (ids, the namespace)."""

    def strip(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in ("id", "namespace")}
        return [strip(v) for v in x] if isinstance(x, list) else x

    return strip(json.loads(json.dumps(answer, default=str)))


def test_writes_agree_with_the_sdk(server: Server) -> None:
    vault: MemVault = server.vault
    key = server.key("p-sdk", "p-client", "p-async")
    said = vault.upsert_attitude("tooling", "prefers uv over pip", namespace="p-sdk")
    used = vault.record_skill_use("rust", kind="build", namespace="p-sdk")
    session = vault.write_many(
        [{"content": "Booked the ferry.", "session_id": "s1"}], namespace="p-sdk"
    )
    for ns, client in (("p-client", Client), ("p-async", AsyncClient)):

        def writes(c: Any) -> Any:
            return (
                c.upsert_attitude("tooling", "prefers uv over pip"),
                c.record_skill_use("rust", kind="build"),
                c.write_session("s1", [{"content": "Booked the ferry."}]),
            )

        if client is Client:
            with Client(server.url, key, namespace=ns) as c:
                a, s, w = writes(c)
        else:

            async def go(ns: str = ns) -> Any:
                async with AsyncClient(server.url, key, namespace=ns) as c:
                    return tuple([await x for x in writes(c)])

            a, s, w = asyncio.run(go())
        assert _plain(a) == _plain(said) and _plain(s) == _plain(used)
        assert (w.created, w.duplicates) == (session.created, session.duplicates) == (1, 0)
        stored = vault.store.list_episodes(ns, limit=10)
        assert [e.session_id for e in stored] == ["s1"]


def test_admin_operations_on_both_clients(server: Server) -> None:
    server.vault.write("hello", namespace="a-one")
    expected = server.vault.namespaces()
    names, names_async = _both(server, ADMIN, "a-one", lambda c: c.namespaces())
    assert names == expected == names_async
    made, made_async = _both(server, ADMIN, "a-one", lambda c: c.create_key("ci", ["a-one"]))
    for key in (made, made_async):
        assert key["key"].startswith("mvk_") and key["scope"] == "write"
    listed, _ = _both(server, ADMIN, "a-one", lambda c: c.list_keys())
    assert {made["id"], made_async["id"]} <= {k["id"] for k in listed}
    revoked, _ = _both(server, ADMIN, "a-one", lambda c: c.revoke_key(made["id"]))
    assert revoked["status"] == "revoked"
    text, text_async = _both(server, ADMIN, "a-one", lambda c: c.metrics())
    assert "memvault_" in text and "memvault_" in text_async
