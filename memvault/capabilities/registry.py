"""Every operation a vault offers, listed once: its name on the SDK facade, the scope a key
needs, and where each surface offers it (REST route, MCP tool, CLI command, the clients).

What reads it:

- the REST API's key check (``api.deps.namespace``): a route's scope is looked up here by
  method and path, and a route missing here needs a write key (fail closed);
- the MCP server's key gate: a ``tools/call`` of a write tool with a read key is refused;
- ``tests/integration/test_surfaces.py``: every REST route, MCP tool, CLI command and
  client method exists as listed here and nothing unlisted exists; the operations the
  clients offer give the same answers through SDK, REST + Client and AsyncClient.

``client`` says whether :class:`memvault.Client` and :class:`memvault.AsyncClient` offer it;
``local`` says why an operation has no remote form (it reads or writes files on the
machine that runs it); ``on`` names the capability object of the SDK facade that owns it
(``vault.persona.attitudes``; the facade's flat name ``vault.attitudes`` is the same method).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Scope = Literal["read", "write", "admin"]
NS = "/v1/ns/{namespace}"


@dataclass(frozen=True)
class Operation:
    name: str  # the SDK facade's method
    scope: Scope
    rest: tuple[str, str] | None = None  # (method, path)
    mcp: str | None = None  # tool name
    cli: str | None = None  # top-level command that runs it
    client: bool = False  # Client and AsyncClient offer it under ``name``
    local: str | None = None  # why no remote surface offers it
    # the SDK facade's capability that owns it (``vault.<on>.<name>``, also ``vault.<name>``);
    # None: not on the SDK (the server's, or the CLI's)
    on: str | None = None

    @property
    def sdk(self) -> bool:
        return self.on is not None


def _op(
    name: str,
    scope: Scope,
    rest: str | None = None,
    *,
    mcp: str | None = None,
    cli: str | None = None,
    client: bool = False,
    local: str | None = None,
    on: str | None,
) -> Operation:
    route = None
    if rest:
        method, path = rest.split(" ", 1)
        route = (method, path if path.startswith(("/v1/", "/metrics")) else NS + path)
    return Operation(name, scope, route, mcp, cli, client, local, on)


_FILES = "reads or writes files on the machine that runs it"
_PREFETCH = "the server runs it by itself after a session's turns are written (write_session)"
OPERATIONS: tuple[Operation, ...] = (
    # remember
    _op("write", "write", mcp="write", cli="write", client=True, on="memories"),
    _op("write_many", "write", "POST /episodes", client=True, on="memories"),
    _op("write_session", "write", "POST /sessions/{session_id}/episodes", client=True, on=None),
    _op("add_facts", "write", "POST /facts", client=True, on="memories"),
    _op("add_fact", "write", mcp="add_fact", client=True, on="memories"),
    _op("ingest", "write", cli="ingest", local=_FILES, on=None),
    _op("import_chat_export", "write", "POST /imports/chat-export", client=True, on="memories"),
    # recall and read
    _op("recall", "read", "POST /recall", mcp="recall", cli="recall", client=True, on="memories"),
    _op("episodes", "read", "GET /episodes", client=True, on="memories"),
    _op("get_episode", "read", "GET /episodes/{episode_id}", client=True, on="memories"),
    _op("facts", "read", "GET /facts", mcp="facts", cli="facts", client=True, on="knowledge"),
    _op("stats", "read", "GET /stats", cli="stats", client=True, on="memories"),
    _op("compact", "admin", cli="compact", local="rewrites this machine's database file", on=None),
    _op("profile", "read", "GET /profile", cli="profile", client=True, on="profiling"),
    _op("diary", "read", "GET /diary", cli="diary", client=True, on="profiling"),
    _op("gaps", "read", "GET /gaps", cli="gaps", client=True, on="profiling"),
    _op("primer", "read", "GET /primer", mcp="primer", cli="primer", client=True, on="digests"),
    _op("graph", "read", cli="graph", local="draws to a terminal or a file", on="knowledge"),
    _op("namespaces", "read", "GET /v1/namespaces", client=True, on="memories"),
    # feedback
    _op(
        "verdict",
        "write",
        "POST /verdicts",
        mcp="verdict",
        cli="verdict",
        client=True,
        on="profiling",
    ),
    _op(
        "judge",
        "write",
        "POST /feedback",
        mcp="feedback",
        cli="feedback",
        client=True,
        on="memories",
    ),
    _op("reinforce", "write", cli="reinforce", client=True, on="memories"),
    _op("record_access", "write", client=True, on="memories"),
    # forget (issue 30.8)
    _op(
        "forget",
        "write",
        "DELETE /episodes/{episode_id}",
        mcp="forget",
        cli="forget",
        client=True,
        on="forgetting",
    ),
    _op("forget_subject", "write", "POST /forget", client=True, on="forgetting"),
    _op(
        "correct",
        "write",
        "POST /episodes/{episode_id}/correct",
        mcp="correct",
        cli="correct",
        client=True,
        on="forgetting",
    ),
    # the background
    _op("dream", "write", "POST /dream", cli="dream", client=True, on="background"),
    _op("dream_job", "read", "GET /dream/jobs/{job_id}", client=True, on=None),
    _op("dream_runs", "read", "GET /dream/runs", client=True, on="background"),
    _op("dream_report", "read", "GET /dream/runs/{run_id}", client=True, on="background"),
    _op("undo_dream", "write", "POST /dream/runs/{run_id}/undo", client=True, on="background"),
    _op("lint", "write", "POST /lint", cli="lint", client=True, on="background"),
    _op("fold", "write", "POST /fold", cli="fold", client=True, on="digests"),
    _op("tiers", "write", "POST /tiers", cli="tiers", client=True, on="background"),
    _op("janitor", "write", "POST /janitor", cli="janitor", client=True, on="background"),
    _op("prefetch", "write", cli="prefetch", local=_PREFETCH, on="profiling"),
    _op(
        "reembed", "write", cli="reembed", local="re-embeds with this machine's model", on="vectors"
    ),
    _op("catch_up", "write", "POST /catch-up", cli="catch-up", client=True, on="vectors"),
    # review and inbox
    _op(
        "review_items",
        "read",
        "GET /review",
        mcp="review_list",
        cli="review",
        client=True,
        on="review",
    ),
    _op(
        "approve",
        "write",
        "POST /review/{item_id}/approve",
        mcp="review_decide",
        client=True,
        on="review",
    ),
    _op("reject", "write", "POST /review/{item_id}/reject", client=True, on="review"),
    _op("decide_reviews", "write", "POST /review/decide", client=True, on="review"),
    _op("inbox", "read", "GET /inbox", mcp="inbox", cli="inbox", client=True, on="review"),
    _op("mark_seen", "write", "POST /inbox/seen", client=True, on=None),
    _op("mark_dismissed", "write", "POST /inbox/dismiss", client=True, on=None),
    # the namespace's own entity types (memvault.kg.vocabulary)
    _op("entity_types", "read", "GET /entity-types", cli="types", client=True, on="knowledge"),
    _op(
        "define_entity_type", "write", "PUT /entity-types/{type_name}", client=True, on="knowledge"
    ),
    _op(
        "remove_entity_type",
        "write",
        "DELETE /entity-types/{type_name}",
        client=True,
        on="knowledge",
    ),
    # persona
    _op(
        "attitudes",
        "read",
        "GET /persona/attitudes",
        mcp="attitudes",
        cli="persona",
        client=True,
        on="persona",
    ),
    _op("upsert_attitude", "write", "POST /persona/attitudes", client=True, on="persona"),
    _op("skills", "read", "GET /persona/skills", client=True, on="persona"),
    _op("record_skill_use", "write", "POST /persona/skills/uses", client=True, on="persona"),
    # interop
    _op("export", "read", cli="export", local=_FILES, on="interop"),
    _op("import_", "write", cli="import", local=_FILES, on="interop"),
    _op("plans", "write", cli="plans", local=_FILES, on=None),
    _op("eval", "read", cli="eval", local=_FILES, on=None),
    _op(
        "session_start_hook",
        "read",
        cli="hook",
        local="an agent's hook runs it on the agent's machine (event on stdin)",
        on=None,
    ),
    # keys and the server (admin)
    _op("list_keys", "admin", "GET /v1/keys", client=True, on=None),
    _op("create_key", "admin", "POST /v1/keys", client=True, on=None),
    _op("revoke_key", "admin", "DELETE /v1/keys/{key_id}", client=True, on=None),
    _op("metrics", "admin", "GET /metrics", client=True, on=None),
)
# commands that run no operation of a vault's: they set up, serve or show
CLI_ONLY = frozenset({"init", "demo", "serve", "mcp"})
# routes outside the registry: health and the API's own description, open to anyone
OPEN_ROUTES = frozenset(
    {
        ("GET", "/healthz"),
        ("GET", "/openapi.json"),
        ("GET", "/docs"),
        ("GET", "/docs/oauth2-redirect"),
        ("GET", "/redoc"),
    }
)

BY_ROUTE = {op.rest: op for op in OPERATIONS if op.rest}
BY_TOOL = {op.mcp: op for op in OPERATIONS if op.mcp}
WRITE_TOOLS = frozenset(t for t, op in BY_TOOL.items() if op.scope != "read")


def scope_of(method: str, path: str) -> Scope:
    """The scope a REST route needs; one missing from the registry needs a write key."""
    op = BY_ROUTE.get((method.upper(), path))
    return op.scope if op else "write"


def table() -> str:
    """docs/surfaces.md: every operation and where each surface offers it, from this registry
    (``python -m memvault.capabilities.registry > docs/surfaces.md``; a test compares)."""
    remote = [op for op in OPERATIONS if not op.local]
    on_clients = sum(op.client for op in OPERATIONS)
    coverage = "every one of them" if on_clients == len(remote) else f"{on_clients} of them"
    head = [
        "# Operations and surfaces",
        "",
        "Generated from `memvault/capabilities/registry.py` by",
        "`python -m memvault.capabilities.registry > docs/surfaces.md`; "
        "`tests/unit/test_surfaces_doc.py` fails when they differ.",
        "",
        f"{len(OPERATIONS)} operations: {len(remote)} offered remotely, {coverage} on both "
        "REST clients (`memvault.Client` and `memvault.AsyncClient`), "
        f"{len(OPERATIONS) - len(remote)} local-only. Scope: the key a remote call needs "
        "(read, write, admin). SDK: the capability of the `MemVault` facade that owns the "
        "operation (`vault.persona.attitudes(...)`; the flat `vault.attitudes(...)` is the same "
        "method).",
        "",
        "| operation | scope | SDK | REST | MCP tool | CLI | clients | local-only because |",
        "|---|---|---|---|---|---|---|---|",
    ]
    rows = [
        "| `{}` | {} | {} | {} | {} | {} | {} | {} |".format(
            op.name,
            op.scope,
            f"`vault.{op.on}`" if op.on else "",
            f"`{op.rest[0]} {op.rest[1]}`" if op.rest else "",
            f"`{op.mcp}`" if op.mcp else "",
            f"`memvault {op.cli}`" if op.cli else "",
            "yes" if op.client else "",
            op.local or "",
        )
        for op in OPERATIONS
    ]
    return "\n".join([*head, *rows]) + "\n"


if __name__ == "__main__":
    print(table(), end="")
