"""memvault as an MCP server (the official ``mcp`` SDK's FastMCP), for agents: docs/server.md.

One server serves one namespace. Over stdio it is a local process like the CLI. Over
streamable HTTP every request must carry an API key (``Authorization: Bearer`` or
``X-API-Key``) that may use that namespace: a missing or unknown key gets 401, a key of
another namespace 403, a client that keeps failing 429 (the REST API's throttle). It binds to
loopback unless told otherwise and, like ``serve``, refuses a default, short or predictable
server secret (or admin key, when one is set) on any address.

Tools: recall, write, add_fact, feedback, verdict, facts, inbox, review_list, review_decide,
forget, correct, primer, attitudes (:mod:`memvault.capabilities.registry` lists each with its
scope: a read-only key may call only the read tools). Resources: ``memvault://primer``,
``memvault://stats``. A memvault error comes back as a tool error with the message the CLI
prints; nothing else is caught.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal, TypeVar

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.auth import KeyStore
from api.security import AuthThrottle, Denied, admit, require_strong_secrets, throttle_for
from memvault.capabilities.registry import BY_TOOL
from memvault.client import Client
from memvault.errors import MemvaultError
from memvault.interop.jsonl import parse_session_time
from memvault.vault import MemVault

F = TypeVar("F", bound=Callable[..., Any])
# a read-only key may call these; any other tool (one missing from the registry too) writes
READ_TOOLS = frozenset(name for name, op in BY_TOOL.items() if op.scope == "read")
INSTRUCTIONS = (
    "Long-term memory for this user or agent. recall before answering about the past (it ranks "
    "what is current above what was replaced); write what happened; add_fact for a standing "
    "fact with the time it became true; feedback 'access' on what you used and 'reinforce' on "
    "what helped. primer gives the session-start summary."
)


def _errors(fn: F) -> F:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except MemvaultError as exc:
            raise ToolError(str(exc)) from None

    return wrapper  # type: ignore[return-value]


def _when(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    from memvault.errors import DateRangeError, InvalidInputError

    try:
        return parse_session_time(value)
    except (DateRangeError, ValueError) as exc:
        raise InvalidInputError(str(exc), field=name, hint="an ISO date, e.g. 2026-03-01") from None


def build(
    vault: MemVault | Client, namespace: str, *, host: str = "127.0.0.1", port: int = 8765
) -> FastMCP:
    """The tools over an embedded vault, or over a remote one through :class:`Client` (the
    same method names; ``memvault mcp --url URL --key KEY``)."""
    ns = vault.ns(namespace) if isinstance(vault, MemVault) else namespace
    server = FastMCP(
        "memvault", instructions=INSTRUCTIONS, host=host, port=port, log_level="WARNING"
    )

    @server.tool()
    @_errors
    def recall(query: str, k: int = 10, as_of: str | None = None) -> list[dict[str, Any]]:
        """The memories that matter most for a query (as the world stood at as_of, an ISO
        date, when given), each with its score and why."""
        hits = vault.recall(query, namespace=ns, k=k, as_of=_when(as_of, "as_of"))
        extra = {
            "recall_id": hits.recall_id,
            **({"hint": hits.hint} if hits.hint else {}),
            **({"vectors_pending": hits.vectors_pending} if hits.vectors_pending else {}),
        }
        return [
            {
                "kind": h.kind,
                "id": h.id,
                "text": h.text,
                "score": round(h.score, 6),
                "why": h.explanation.text(),
                **({"tier": h.tier.value, "digest": h.digest} if h.digest and h.tier else {}),
                **(extra if n == 0 else {}),
            }
            for n, h in enumerate(hits)
        ]

    @server.tool()
    @_errors
    def write(
        content: str,
        speaker: str | None = None,
        session_id: str | None = None,
        type: str = "episodic",
        occurred_at: str | None = None,
    ) -> dict[str, Any]:
        """Write one memory (a turn, an observation, a note); type: episodic, user,
        feedback, project or reference."""
        item: dict[str, Any] = {"content": content, "type": type}
        if speaker:
            item["speaker"] = speaker
        if session_id:
            item["session_id"] = session_id
        if occurred_at:
            item["occurred_at"] = _when(occurred_at, "occurred_at")
        result = vault.write_many([item], namespace=ns)
        return {"episode_id": result.episode_ids[0], "created": result.created == 1}

    @server.tool()
    @_errors
    def add_fact(
        subject: str, predicate: str, object: str, valid_at: str | None = None
    ) -> dict[str, Any]:
        """A standing fact (subject —predicate→ object), true from valid_at (default: now)."""
        item: dict[str, Any] = {"subject": subject, "predicate": predicate, "object": object}
        if valid_at:
            item["valid_at"] = _when(valid_at, "valid_at")
        (fact,) = vault.add_facts([item], namespace=ns)
        return {"fact_id": fact.id, "statement": fact.statement}

    @server.tool()
    @_errors
    def feedback(
        ids: list[str],
        signal: Literal["access", "reinforce", "up", "down", "correct", "incorrect"],
    ) -> dict[str, Any]:
        """Say how memories served: access (used), reinforce / correct (it helped),
        up / down (importance), incorrect (a fact is retired)."""
        return {"changed": vault.judge(ids, signal, namespace=ns)}

    @server.tool()
    @_errors
    def verdict(
        recall_id: str,
        verdict: Literal["correct", "incorrect", "ambiguous"],
        hit_id: str | None = None,
    ) -> dict[str, Any]:
        """How a recall went (its recall_id comes with recall's first hit): a question
        answered wrongly twice becomes a knowledge gap, and recall then says so."""
        return vault.verdict(recall_id, verdict, hit_id=hit_id, namespace=ns)

    @server.tool()
    @_errors
    def facts(
        subject: str | None = None, predicate: str | None = None, as_of: str | None = None
    ) -> list[dict[str, Any]]:
        """Facts held now (or as of a date), optionally of one subject or predicate."""
        found = vault.facts(
            namespace=ns, subject=subject, predicate=predicate, as_of=_when(as_of, "as_of")
        )
        return [
            {
                "id": f.id,
                "statement": f.statement,
                "valid_at": f.valid_at.isoformat(),
                "invalid_at": f.invalid_at.isoformat() if f.invalid_at else None,
            }
            for f in found
        ]

    @server.tool()
    @_errors
    def inbox(status: str = "unseen", limit: int = 20) -> list[dict[str, Any]]:
        """What the dream noticed: discoveries (bridges, gaps) to look at."""
        return vault.inbox(namespace=ns, status=status, limit=limit)

    @server.tool()
    @_errors
    def review_list(status: str = "pending", limit: int = 20) -> list[dict[str, Any]]:
        """Changes waiting for a human, each with why it waits."""
        return vault.review_items(namespace=ns, status=status, limit=limit)

    @server.tool()
    @_errors
    def review_decide(
        review_id: str, decision: Literal["approve", "reject"], note: str = ""
    ) -> dict[str, Any]:
        """Approve (apply it) or reject (with a note) one review item."""
        if decision == "approve":
            return {"approved": review_id, "applied": vault.approve(review_id, namespace=ns)}
        vault.reject(review_id, namespace=ns, note=note)
        return {"rejected": review_id}

    @server.tool()
    @_errors
    def forget(episode_id: str, dry_run: bool = False) -> dict[str, Any]:
        """Erase a memory and what is derived only from it, for good (the user asked to
        forget it). dry_run: list what would go, change nothing."""
        plan = vault.forget(episode_id, namespace=ns, dry_run=dry_run)
        keys = ("applied", "episode_ids", "fact_ids", "facts_kept", "entity_ids")
        return {k: getattr(plan, k) for k in keys}

    @server.tool()
    @_errors
    def correct(episode_id: str, text: str) -> dict[str, Any]:
        """Replace a memory that is wrong with its corrected text; the old one is kept in
        the history, marked as corrected, and no longer recalled."""
        done = vault.correct(episode_id, text, namespace=ns)
        return {"old_id": done.old_id, "new_id": done.new_id, "facts_retired": done.facts_retired}

    @server.tool()
    @_errors
    def primer(budget_tokens: int | None = None) -> dict[str, Any]:
        """The session-start block: digests, how the person likes things done, what waits."""
        block = vault.primer(namespace=ns, budget_tokens=budget_tokens)
        return block if isinstance(block, dict) else block.to_dict()

    @server.tool()
    @_errors
    def attitudes(category: str | None = None) -> list[dict[str, Any]]:
        """How the person likes things done, now (current attitudes)."""
        return [
            {k: a[k] for k in ("category", "statement", "context", "confidence_now", "version")}
            for a in vault.attitudes(namespace=ns, category=category)
        ]

    @server.resource("memvault://primer")
    def primer_text() -> str:
        """The session-start primer as text."""
        block = vault.primer(namespace=ns)
        return str(block["text"]) if isinstance(block, dict) else block.text

    @server.resource("memvault://stats", mime_type="application/json")
    def stats() -> str:
        """What the namespace holds."""
        return json.dumps(vault.stats(namespace=ns), default=str)

    return server


class KeyGate:
    """ASGI middleware: every HTTP request needs a key that may use the namespace."""

    def __init__(self, app: ASGIApp, keys: KeyStore, namespace: str, throttle: AuthThrottle):
        self.app, self.keys, self.namespace, self.throttle = app, keys, namespace, throttle

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        auth = request.headers.get("authorization", "")
        key = auth[7:].strip() if auth.lower().startswith("bearer ") else ""
        key = key or request.headers.get("x-api-key", "")
        client = request.client.host if request.client else "unknown"
        principal = admit(self.keys, self.throttle, client, key)
        if isinstance(principal, Denied):
            kind = "TooManyRequests" if principal.status == 429 else "Unauthorized"
            retry = {"Retry-After": str(principal.retry_after)} if principal.retry_after else None
            reply = JSONResponse(
                {"error": {"type": kind, "message": principal.message}},
                status_code=principal.status,
                headers=retry,
            )
        elif not principal.may(self.namespace):
            reply = JSONResponse(
                {
                    "error": {
                        "type": "Forbidden",
                        "message": f"this key may not use {self.namespace!r}",
                    }
                },
                status_code=403,
            )
        elif not principal.allows("write"):
            body, replay = await _buffer(receive)
            refused = _write_tools(body)
            if not refused:
                await self.app(scope, replay, send)
                return
            reply = JSONResponse(
                {
                    "error": {
                        "type": "Forbidden",
                        "message": f"this key may only read: {refused[0]} needs a write key",
                    }
                },
                status_code=403,
            )
        else:
            await self.app(scope, receive, send)
            return
        await reply(scope, receive, send)


async def _buffer(receive: Receive) -> tuple[bytes, Receive]:
    """The request's body, and a ``receive`` that hands it on unchanged."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    body, sent = b"".join(chunks), False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay


def _write_tools(body: bytes) -> list[str]:
    """The write tools a JSON-RPC message (or batch) calls; a body that is not JSON-RPC is
    left to the MCP server to refuse."""
    try:
        data = json.loads(body or b"null")
    except ValueError:
        return []
    calls = data if isinstance(data, list) else [data]
    return [
        str(c["params"].get("name"))
        for c in calls
        if isinstance(c, dict)
        and c.get("method") == "tools/call"
        and isinstance(c.get("params"), dict)
        and c["params"].get("name") not in READ_TOOLS
    ]


def http_app(vault: MemVault, namespace: str, *, host: str, port: int) -> ASGIApp:
    """The streamable-HTTP app behind the key gate: the same secret rules as ``serve`` (a
    default, short or predictable secret or admin key is refused, on any address) and the same
    throttle on failed keys (shared through Redis when the server has one)."""
    s = vault.settings
    require_strong_secrets(s, admin_key_required=False)
    server = build(vault, namespace, host=host, port=port)
    keys = KeyStore(vault.store, s.secret_key, s.server.admin_key)
    throttle = throttle_for(s, vault.c.coord)
    return KeyGate(server.streamable_http_app(), keys, vault.ns(namespace), throttle)
