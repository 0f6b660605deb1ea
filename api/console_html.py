"""The console's pieces (:mod:`api.console` holds its routes): the signed operator session
and its CSRF token, the templates (Jinja2, ``api/templates/console``, every value escaped
unless it is markup a template rendered), tables of changes, and the communities' SVG."""

from __future__ import annotations

import hashlib
import hmac
import math
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, quote

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from api.auth import KEY, SYSTEM_NS, KeyStore
from memvault.graphs import GraphView
from memvault.kg.communities import Partition
from memvault.kg.edge_ops import Edge
from memvault.vault import MemVault

COOKIE, TTL_S = "mv_console", 8 * 3600
PAGE = 100  # review items per page
TEMPLATES = Environment(
    loader=PackageLoader("api", "templates"),
    autoescape=True,  # every value is text unless a template rendered it (Markup)
    undefined=StrictUndefined,
)
TEMPLATES.filters["q"] = lambda text: quote(str(text), safe="")


def render(template: str, /, **values: Any) -> Markup:
    """A template of ``api/templates/console`` (its name without the folder) as markup."""
    return Markup(TEMPLATES.get_template(f"console/{template}").render(**values))


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
    request: Request,
    title: str,
    template: str,
    *,
    ns: str | None = None,
    flash: str | None = None,
    status_code: int = 200,
    **values: Any,
) -> HTMLResponse:
    """A console page: ``template`` inside the chrome (navigation, log out, the flash)."""
    html = render(template, title=title, ns=ns, flash=flash or None, csrf=_csrf(request), **values)
    return HTMLResponse(html, status_code=status_code)


def _message(request: Request, title: str, message: str, ns: str | None, status: int) -> Response:
    return _page(request, title, "message.html", ns=ns, status_code=status, message=message)


def _guard(request: Request) -> Response | None:
    if _session(request) is None:
        return RedirectResponse("/console/login", status_code=303)
    return None


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


def _changes(changes: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Changes as the ``change_rows`` macro shows them: kind, why, created or not, and each
    field that differs (before, after) but the metadata and evidence."""
    out = []
    for c in changes:
        before, after = c.get("before") or {}, c.get("after") or {}
        keys = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        out.append(
            {
                "kind": c["kind"],
                "why": "; ".join(f"{r['op']}: {r['why']}" for r in c.get("reasons", [])),
                "created": c.get("before") is None,
                "diff": [
                    (k, _short(before.get(k)), _short(after.get(k)))
                    for k in keys
                    if k not in ("metadata", "evidence")
                ],
            }
        )
    return out


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
    lines = [
        {"x1": pos[e.a][0], "y1": pos[e.a][1], "x2": pos[e.b][0], "y2": pos[e.b][1],
         "w": 0.5 + 2 * e.composite}
        for e in edges
        if e.a in pos and e.b in pos
    ]  # fmt: skip
    dots = [
        {
            "g": g,
            "x": pos[node][0],
            "y": pos[node][1],
            "name": view.ws.entities[node].name,
            "colour": colours[g % len(colours)] if g < len(partition.communities) else "#9ca3af",
        }
        for g, members in enumerate(groups)
        for node in members
    ]
    svg = render("svg/communities.svg", width=width, height=height, lines=lines, dots=dots)
    return svg, len(pos)
