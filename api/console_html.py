"""The console's pieces (:mod:`api.console` holds its routes): the signed operator session
and its CSRF token, the page chrome, forms, tables of changes, and the communities' SVG."""

from __future__ import annotations

import hashlib
import hmac
import math
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from html import escape
from typing import Any
from urllib.parse import parse_qs, quote

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from api.auth import KEY, SYSTEM_NS, KeyStore
from memvault.graphs import GraphView
from memvault.kg.communities import Partition
from memvault.kg.edge_ops import Edge
from memvault.vault import MemVault

COOKIE, TTL_S = "mv_console", 8 * 3600
PAGE = 100  # review items per page
STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:10px 20px;display:flex;gap:18px;align-items:center}
header a{color:#cfe0ff;text-decoration:none}main{padding:16px 20px;max-width:1200px}
table{border-collapse:collapse;width:100%;background:#fff}td,th{border-bottom:1px solid #e3e6eb;
padding:6px 8px;text-align:left;vertical-align:top}th{background:#eef1f5}.muted{color:#6b7280}
.flash{background:#e8f5e9;border:1px solid #a5d6a7;padding:8px;margin-bottom:12px}
.err{background:#fdecea;border-color:#f5c2c0}code{font-size:12px}button{cursor:pointer}
form.inline{display:inline}pre{white-space:pre-wrap;margin:0;font-size:12px}
"""


def _vault(request: Request) -> MemVault:
    vault: MemVault = request.app.state.vault
    return vault


def _keys(request: Request) -> KeyStore:
    keys: KeyStore = request.app.state.keys
    return keys


def _secret(request: Request) -> bytes:
    return _vault(request).settings.secret_key.encode()


def _sign(request: Request, text: str) -> str:
    return hmac.new(_secret(request), text.encode(), hashlib.sha256).hexdigest()


def _session(request: Request) -> str | None:
    """The signed session of an operator whose key is still good, or None."""
    token = request.cookies.get(COOKIE, "")
    parts = token.split(".")
    if len(parts) != 3:
        return None
    key_id, expires, sig = parts
    if not hmac.compare_digest(sig, _sign(request, f"{key_id}.{expires}")):
        return None
    if not expires.isdigit() or int(expires) < time.time():
        return None
    if key_id != "admin":  # a namespace-store key: still there and still an admin key
        found = _vault(request).store.get_docs(SYSTEM_NS, KEY, [key_id])
        if not found or found[0].status != "active" or not found[0].body.get("admin"):
            return None
    return token


def _csrf(request: Request) -> str:
    return _sign(request, "csrf:" + (request.cookies.get(COOKIE) or ""))[:32]


async def _form(request: Request) -> dict[str, str]:
    raw = (await request.body()).decode("utf-8", errors="replace")
    return {k: v[0] for k, v in parse_qs(raw, keep_blank_values=True).items()}


def _page(
    request: Request, title: str, body: str, *, ns: str | None = None, flash: str | None = None
) -> str:
    nav = '<a href="/console">namespaces</a>'
    if ns:
        q = quote(ns, safe="")
        nav += "".join(
            f' <a href="/console/ns/{q}/{part}">{part}</a>'
            for part in ("memories", "review", "inbox", "runs", "graph", "persona")
        )
    note = ""
    if flash:
        kind = "flash err" if flash.startswith("error:") else "flash"
        note = f'<div class="{kind}" id="flash">{escape(flash)}</div>'
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)} · memvault"
        f"</title><style>{STYLE}</style></head><body><header><b>memvault console</b>{nav}"
        f'<span style="flex:1"></span>{_button(request, "/console/logout", "log out")}'
        "</header><main>"
        f"<h2>{escape(title)}{' · ' + escape(ns) if ns else ''}</h2>{note}{body}"
        "</main></body></html>"
    )


def _guard(request: Request) -> Response | None:
    if _session(request) is None:
        return RedirectResponse("/console/login", status_code=303)
    return None


def _button(request: Request, action: str, label: str, extra: str = "", confirm: str = "") -> str:
    check = f" onsubmit=\"return confirm('{escape(confirm)}')\"" if confirm else ""
    return (
        f'<form method="post" action="{escape(action)}" class="inline"{check}>'
        f'<input type="hidden" name="csrf" value="{_csrf(request)}">{extra}'
        f"<button>{escape(label)}</button></form>"
    )


async def _checked(request: Request) -> dict[str, str] | Response:
    """A POST from the console: a live session and its CSRF token, or a refusal."""
    if _session(request) is None:
        return RedirectResponse("/console/login", status_code=303)
    form = await _form(request)
    if not hmac.compare_digest(form.get("csrf", ""), _csrf(request)):
        return HTMLResponse("the form is stale: reload the page", status_code=403)
    return form


def _back(path: str, message: str) -> RedirectResponse:
    return RedirectResponse(f"{path}?flash={quote(message)}", status_code=303)


def _age_days(item: dict[str, Any]) -> float:
    history = item.get("history") or [{}]
    created = history[0].get("at")
    if not created:
        return 0.0
    when = datetime.fromisoformat(str(created))
    return max((datetime.now(UTC) - when).total_seconds() / 86400.0, 0.0)


def _change_rows(changes: Sequence[dict[str, Any]]) -> str:
    out = []
    for c in changes:
        before, after = c.get("before") or {}, c.get("after") or {}
        keys = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        diff = "".join(
            f"<div><code>{escape(k)}</code>: {escape(_short(before.get(k)))} → "
            f"{escape(_short(after.get(k)))}</div>"
            for k in keys
            if k not in ("metadata", "evidence")
        )
        if c.get("before") is None:
            diff = "<div>created</div>" + diff
        why = "; ".join(f"{r['op']}: {r['why']}" for r in c.get("reasons", []))
        out.append(
            f"<tr><td><code>{escape(c['kind'])}</code></td><td>{escape(why)}</td>"
            f"<td>{diff}</td></tr>"
        )
    return "".join(out)


def _short(value: Any) -> str:
    text = "∅" if value is None else str(value)
    return text if len(text) <= 160 else text[:159] + "…"


def communities_svg(view: GraphView, edges: list[Edge], partition: Partition) -> tuple[str, int]:
    """The communities as an SVG (one ring per community, entities coloured by it, composite
    edges by weight) and how many entities it draws."""
    colours = ["#3b82f6", "#ef4444", "#10b981", "#f59e0b", "#8b5cf6", "#ec4899", "#14b8a6"]
    groups = [list(c) for c in partition.communities]
    grouped = {i for c in groups for i in c}
    loose = [n for n in view.nodes() if n not in grouped and any(n in (e.a, e.b) for e in edges)]
    if loose:
        groups.append(loose)
    width, height = 900, 600
    pos: dict[str, tuple[float, float]] = {}
    cols = max(1, math.ceil(math.sqrt(len(groups))))
    for g, members in enumerate(groups):
        cx = (g % cols + 0.5) * width / cols
        cy = (g // cols + 0.5) * height / max(1, math.ceil(len(groups) / cols))
        radius = min(width / cols, height / cols) * 0.35
        for k, node in enumerate(members):
            angle = 2 * math.pi * k / max(len(members), 1)
            pos[node] = (cx + radius * math.cos(angle), cy + radius * math.sin(angle))
    lines = "".join(
        f'<line x1="{pos[e.a][0]:.1f}" y1="{pos[e.a][1]:.1f}" x2="{pos[e.b][0]:.1f}" '
        f'y2="{pos[e.b][1]:.1f}" stroke="#9ca3af" stroke-width="{0.5 + 2 * e.composite:.2f}"/>'
        for e in edges
        if e.a in pos and e.b in pos
    )
    dots = []
    for g, members in enumerate(groups):
        colour = colours[g % len(colours)] if g < len(partition.communities) else "#9ca3af"
        for node in members:
            x, y = pos[node]
            name = escape(view.ws.entities[node].name)
            dots.append(
                f'<g class="node" data-community="{g}"><circle cx="{x:.1f}" cy="{y:.1f}" r="7" '
                f'fill="{colour}"><title>{name}</title></circle><text x="{x + 9:.1f}" '
                f'y="{y + 4:.1f}" font-size="11">{name}</text></g>'
            )
    return (
        f'<svg id="graph" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'style="background:#fff">{lines}{"".join(dots)}</svg>',
        len(pos),
    )
