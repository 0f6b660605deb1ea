"""One capability, every surface (issue 29.2): the registry of operations against what each
surface really offers, key scopes enforced from it, and forget/correct giving the same
result through the SDK, REST + Client, AsyncClient, MCP and the CLI on one vault."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
import typer.main

from api.app import create_app
from api.mcp import build
from memvault import AsyncClient, Client, FixedClock, MemVault
from memvault.capabilities.registry import BY_ROUTE, CLI_ONLY, OPEN_ROUTES, OPERATIONS
from memvault.cli.main import app as cli_app
from memvault.demo import demo_items
from memvault.embed import HashingEmbedder
from memvault.jobs import InProcessJobs
from tests.http import serving

MEMVAULT = str(Path(sys.executable).parent / "memvault")
SECRET = "surfaces-test-secret-" + "Qw7e" * 8
ADMIN = "surfaces-test-admin-" + "Rt5y" * 8
NOW = datetime(2026, 2, 1, tzinfo=UTC)
SAID = [
    "I adopted a greyhound called Pixel in March.",
    "My bank PIN hint is the year my grandmother Odete was born, 1931.",
    "The climbing gym on Rua do Ouro opens at seven.",
]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[dict[str, Any]]:
    vault = MemVault.open(
        tmp_path / "v.db",
        embedder=HashingEmbedder(),
        clock=FixedClock(NOW),
        secret_key=SECRET,
        server={"admin_key": ADMIN},
    )
    app = create_app(vault, InProcessJobs(vault.c))
    with serving(app) as url:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ADMIN}"}) as c:
            made = {
                scope: c.post(
                    "/v1/keys",
                    json={
                        "name": scope,
                        "namespaces": [f"n-{s}" for s in SURFACES],
                        "scope": scope,
                    },
                ).json()["key"]
                for scope in ("read", "write")
            }
        yield {"url": url, "vault": vault, "app": app, "db": tmp_path / "v.db", **made}
    vault.close()


SURFACES = ("sdk", "client", "async", "mcp", "cli")


def test_the_registry_lists_exactly_what_each_surface_offers(server: dict[str, Any]) -> None:
    routes = {
        (method.upper(), path)
        for path, ops in server["app"].openapi()["paths"].items()
        for method in ops
    }
    assert routes - set(BY_ROUTE) - OPEN_ROUTES == set(), "routes missing from the registry"
    assert set(BY_ROUTE) - routes == set(), "registry routes the API does not serve"

    tools = {t.name for t in asyncio.run(build(server["vault"], "default").list_tools())}
    assert tools == {op.mcp for op in OPERATIONS if op.mcp}

    commands = set(typer.main.get_command(cli_app).commands)  # type: ignore[attr-defined]
    assert commands == {op.cli for op in OPERATIONS if op.cli} | CLI_ONLY

    offered = {op.name for op in OPERATIONS if op.client}
    for cls in (Client, AsyncClient):
        public = {n for n in vars(cls) if not n.startswith("_")} - {"close", "aclose"}
        assert public == offered, cls.__name__
    for op in OPERATIONS:
        assert hasattr(MemVault, op.name) == op.sdk, op.name
        assert not (op.local and (op.rest or op.mcp or op.client)), op.name


def test_a_read_key_runs_reads_and_every_write_route_refuses_it(server: dict[str, Any]) -> None:
    headers = {"Authorization": f"Bearer {server['read']}"}
    with httpx.Client(base_url=server["url"], headers=headers) as c:
        for (method, path), op in BY_ROUTE.items():
            if not path.startswith("/v1/ns/"):
                continue
            url = path.replace("{namespace}", "n-sdk")
            for name in ("episode_id", "session_id", "job_id", "run_id", "item_id"):
                url = url.replace("{" + name + "}", "x")
            got = c.request(method, url, json={} if method == "POST" else None)
            if op.scope == "write":
                assert got.status_code == 403 and "may only read" in got.text, (method, path)
            else:
                assert got.status_code != 403, (method, path, got.text)
        assert c.post("/v1/ns/n-sdk/recall", json={"query": "dog"}).status_code == 200


def _cli(server: dict[str, Any], *args: str) -> Any:
    env = {
        **os.environ,
        "MEMVAULT_DB_PATH": str(server["db"]),
        "MEMVAULT_EMBEDDER": "hashing",
        "HF_HUB_OFFLINE": "1",
    }
    out = subprocess.run([MEMVAULT, *args, "--json"], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _forget(server: dict[str, Any], surface: str, ns: str, episode_id: str) -> dict[str, int]:
    url, key, vault = server["url"], server["write"], server["vault"]
    if surface == "sdk":
        plan = vault.forget(episode_id, namespace=ns).to_dict()
    elif surface == "client":
        with Client(url, key, namespace=ns) as c:
            plan = c.forget(episode_id).to_dict()
    elif surface == "async":

        async def go() -> dict[str, Any]:
            async with AsyncClient(url, key, namespace=ns) as c:
                return (await c.forget(episode_id)).to_dict()

        plan = asyncio.run(go())
    elif surface == "mcp":
        result = asyncio.run(build(vault, ns).call_tool("forget", {"episode_id": episode_id}))
        plan = json.loads(result[0][0].text)
    else:
        plan = _cli(server, "forget", episode_id, "-n", ns, "--apply")
    keys = ("episode_ids", "fact_ids", "facts_kept", "entity_ids")
    return {k: len(plan[k]) for k in keys} | {"applied": plan["applied"]}


def _correct(server: dict[str, Any], surface: str, ns: str, episode_id: str, text: str) -> None:
    url, key, vault = server["url"], server["write"], server["vault"]
    if surface == "sdk":
        vault.correct(episode_id, text, namespace=ns)
    elif surface == "client":
        with Client(url, key, namespace=ns) as c:
            c.correct(episode_id, text)
    elif surface == "async":

        async def go() -> None:
            async with AsyncClient(url, key, namespace=ns) as c:
                await c.correct(episode_id, text)

        asyncio.run(go())
    elif surface == "mcp":
        asyncio.run(build(vault, ns).call_tool("correct", {"episode_id": episode_id, "text": text}))
    else:
        _cli(server, "correct", episode_id, text, "-n", ns)


def test_forget_and_correct_agree_on_every_surface(server: dict[str, Any]) -> None:
    vault = server["vault"]
    outcomes: dict[str, Any] = {}
    for surface in SURFACES:
        ns = f"n-{surface}"
        ids = [vault.write(t, speaker="Lea", namespace=ns).id for t in SAID]
        plan = _forget(server, surface, ns, ids[1])
        _correct(server, surface, ns, ids[2], "The climbing gym on Rua do Ouro opens at eight.")
        live = sorted(e.content for e in vault.episodes(namespace=ns) if e.expired_at is None)
        facts = sorted(f.statement for f in vault.facts(namespace=ns, include_history=True))
        top = vault.recall("when does the climbing gym open?", namespace=ns)[0].text
        outcomes[surface] = {"plan": plan, "live": live, "facts": facts, "top": top}
    assert outcomes["sdk"]["plan"]["applied"] and outcomes["sdk"]["plan"]["episode_ids"] == 1
    assert "1931" not in json.dumps(outcomes["sdk"]) and "eight" in outcomes["sdk"]["top"]
    for surface in SURFACES[1:]:
        assert outcomes[surface] == outcomes["sdk"], surface


def test_entity_types_agree_on_sdk_client_async_and_cli(server: dict[str, Any]) -> None:
    """Defined through each surface, the namespace's own type types the same write the same."""
    url, key, vault = server["url"], server["write"], server["vault"]
    seen = {}
    for surface in ("sdk", "client", "async", "cli"):
        ns = f"n-{surface}"
        if surface == "sdk":
            vault.define_entity_type("pet", "an animal", cues=["greyhound"], namespace=ns)
            listed = [t.model_dump() for t in vault.entity_types(namespace=ns)]
        elif surface == "client":
            with Client(url, key, namespace=ns) as c:
                c.define_entity_type("pet", "an animal", cues=["greyhound"])
                listed = [t.model_dump() for t in c.entity_types()]
        elif surface == "async":

            async def go(ns: str = ns) -> list[dict[str, Any]]:
                async with AsyncClient(url, key, namespace=ns) as c:
                    await c.define_entity_type("pet", "an animal", cues=["greyhound"])
                    return [t.model_dump() for t in await c.entity_types()]

            listed = asyncio.run(go())
        else:
            _cli(server, "types", "add", "pet", "an animal", "--cue", "greyhound", "-n", ns)
            env = {**os.environ, "MEMVAULT_DB_PATH": str(server["db"]), "HF_HUB_OFFLINE": "1"}
            out = subprocess.run(
                [MEMVAULT, "types", "list", "-n", ns, "--json"],
                env={**env, "MEMVAULT_EMBEDDER": "hashing"},
                capture_output=True,
                text=True,
            )
            listed = json.loads(out.stdout)
        vault.write(SAID[0], speaker="Lea", namespace=ns)
        pixel = vault.store.find_entities(ns, ["Pixel"])[0].type
        seen[surface] = (listed, pixel)
    assert seen["sdk"][1] == "pet" and seen["sdk"][0][-1]["name"] == "pet"
    assert all(seen[s] == seen["sdk"] for s in seen), seen
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}) as c:
        bad = c.put("/v1/ns/n-sdk/entity-types/Pet!", json={"description": "x"})
        assert bad.status_code == 422 and "error" in bad.json()
        built_in = c.put("/v1/ns/n-sdk/entity-types/person", json={"description": "x"})
        assert built_in.status_code == 422 and "built-in" in built_in.text
        assert c.delete("/v1/ns/n-sdk/entity-types/ghost").status_code == 404
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {server['read']}"}) as c:
        assert c.get("/v1/ns/n-sdk/entity-types").status_code == 200
        assert c.put("/v1/ns/n-sdk/entity-types/x", json={"description": "x"}).status_code == 403


# what each read shows, the same on every surface: (SDK call, client call, MCP tool and
# arguments, CLI arguments, the projection compared)
READS: dict[str, tuple[Any, Any, tuple[str, dict[str, Any]], list[str], Any]] = {
    "recall": (
        lambda v, ns: [h.text for h in v.recall("where does Maya live?", namespace=ns, k=5)],
        lambda c: c.recall("where does Maya live?", k=5),
        ("recall", {"query": "where does Maya live?", "k": 5}),
        ["recall", "where does Maya live?", "-k", "5"],
        lambda rows: [r.text if hasattr(r, "text") else r["text"] for r in rows],
    ),
    "facts": (
        lambda v, ns: sorted(f.statement for f in v.facts(namespace=ns)),
        lambda c: c.facts(),
        ("facts", {}),
        ["facts"],
        lambda rows: sorted(
            r.statement if hasattr(r, "statement") else r["statement"] for r in rows
        ),
    ),
    "primer": (
        lambda v, ns: v.primer(namespace=ns).text,
        lambda c: c.primer(),
        ("primer", {}),
        ["primer"],
        lambda block: block["text"],
    ),
    "review_items": (
        lambda v, ns: sorted(i["id"] for i in v.review_items(namespace=ns)),
        lambda c: c.review_items(),
        ("review_list", {"limit": 100}),
        ["review", "list"],
        lambda rows: sorted(r["id"] for r in rows),
    ),
    "attitudes": (
        lambda v, ns: sorted(a["statement"] for a in v.attitudes(namespace=ns)),
        lambda c: c.attitudes(),
        ("attitudes", {}),
        ["persona", "attitudes"],
        lambda rows: sorted(r["statement"] for r in rows),
    ),
}


def test_reads_agree_on_every_surface(server: dict[str, Any]) -> None:
    """Each read the MCP tools and the CLI offer shows the same through the SDK, REST +
    Client, AsyncClient, MCP and the CLI, on one vault after a dream."""
    url, key, vault, ns = server["url"], server["read"], server["vault"], "n-sdk"
    vault.c.clock.set(datetime.now(UTC))  # the CLI's process reads the wall clock
    for at, items in demo_items():  # the demo's year of Maya: its dream queues reviews
        vault.write_many(items, namespace=ns, now=at)
    vault.upsert_attitude("tooling", "prefers uv over pip", namespace=ns)
    vault.dream(namespace=ns, apply=True, force=True)
    for name, (sdk, remote, (tool, args), cli, shown) in READS.items():
        expected = sdk(vault, ns)
        with Client(url, key, namespace=ns) as c:
            got = {"client": shown(remote(c))}

        async def go(remote: Any = remote) -> Any:
            async with AsyncClient(url, key, namespace=ns) as c:
                return await remote(c)

        got["async"] = shown(asyncio.run(go()))
        structured = asyncio.run(build(vault, ns).call_tool(tool, args))[1]
        got["mcp"] = shown(structured.get("result", structured))
        got["cli"] = shown(_cli(server, *cli, "-n", ns))
        assert expected, name  # the history gives every read something to show
        for surface, value in got.items():
            assert value == expected, (name, surface)


def _writes(server: dict[str, Any], surface: str, ns: str) -> None:
    """Write two memories, judge one up, and say a recall was answered wrongly, through one
    surface."""
    url, key, vault = server["url"], server["write"], server["vault"]
    said = {"content": SAID[0], "speaker": "Lea", "session_id": "s1"}
    later = {"content": SAID[2], "speaker": "Lea", "session_id": "s1"}
    if surface in ("sdk", "client", "async"):

        async def go(c: Any) -> None:
            first = c.write(said["content"], speaker="Lea", session_id="s1", namespace=ns)
            first = await first if asyncio.iscoroutine(first) else first
            step = c.write(later["content"], speaker="Lea", session_id="s1", namespace=ns)
            _ = await step if asyncio.iscoroutine(step) else step
            step = c.judge([first.id], "up", namespace=ns)
            _ = await step if asyncio.iscoroutine(step) else step
            hits = c.recall("climbing gym hours", namespace=ns)
            hits = await hits if asyncio.iscoroutine(hits) else hits
            step = c.verdict(hits.recall_id, "incorrect", namespace=ns)
            _ = await step if asyncio.iscoroutine(step) else step

        if surface == "sdk":
            asyncio.run(go(vault))
        elif surface == "client":
            with Client(url, key) as c:
                asyncio.run(go(c))
        else:

            async def remote() -> None:
                async with AsyncClient(url, key) as c:
                    await go(c)

            asyncio.run(remote())
    elif surface == "mcp":
        mcp = build(vault, ns)
        first = asyncio.run(mcp.call_tool("write", said))[1]["episode_id"]
        asyncio.run(mcp.call_tool("write", later))
        asyncio.run(mcp.call_tool("feedback", {"ids": [first], "signal": "up"}))
        hits = asyncio.run(mcp.call_tool("recall", {"query": "climbing gym hours"}))[1]
        asyncio.run(
            mcp.call_tool("verdict", {"recall_id": hits["result"][0]["recall_id"],
                                      "verdict": "incorrect"})
        )  # fmt: skip
    else:
        first = _cli(server, "write", SAID[0], "--speaker", "Lea", "--session", "s1", "-n", ns)
        _cli(server, "write", SAID[2], "--speaker", "Lea", "--session", "s1", "-n", ns)
        _cli(server, "feedback", first["id"], "up", "-n", ns)
        hits = _cli(server, "recall", "climbing gym hours", "-n", ns)
        _cli(server, "verdict", hits[0]["recall_id"], "incorrect", "-n", ns)


def test_writes_agree_on_every_surface(server: dict[str, Any]) -> None:
    """Writing, judging and a verdict leave the same memories, importance, facts and recall
    log through the SDK, REST + Client, AsyncClient, MCP and the CLI."""
    vault = server["vault"]
    seen = {}
    for surface in SURFACES:
        ns = f"n-{surface}"
        _writes(server, surface, ns)
        episodes = vault.episodes(namespace=ns)
        seen[surface] = {
            "episodes": [(e.content, e.speaker, e.session_id, e.importance) for e in episodes],
            "facts": sorted(f.statement for f in vault.facts(namespace=ns)),
            "entities": sorted(x.name for x in vault.store.find_entities(ns, ["Pixel", "Lea"])),
            "verdicts": [
                v["verdict"]
                for d in vault.store.list_docs(ns, "recall_log", limit=100)
                for v in d.body["verdicts"]
            ],
        }
    assert seen["sdk"]["episodes"][0][3] > 0.5  # judged up
    assert "incorrect" in seen["sdk"]["verdicts"]
    for surface in SURFACES[1:]:
        assert seen[surface] == seen["sdk"], surface
