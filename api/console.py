"""The operator console at ``/console``: the review queue, the discovery inbox, dream runs
(with undo), a namespace's communities and its persona, in the browser (docs/server.md).

Server-rendered HTML, no JavaScript library and nothing loaded from elsewhere (one inline
stylesheet; a ``confirm()`` before undo). Only an operator (admin) key opens it: the key is
checked once at login, then the browser holds a signed session cookie (HttpOnly,
SameSite=Strict, 8 hours; its key is checked again on every request, so revoking the key ends
the session), and every form carries a token derived from the session (CSRF).
"""

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

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from api.auth import KEY, SYSTEM_NS, KeyStore
from memvault.errors import MemvaultError
from memvault.vault import MemVault

router = APIRouter(prefix="/console", include_in_schema=False)
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


def _page(title: str, body: str, *, ns: str | None = None, flash: str | None = None) -> str:
    nav = '<a href="/console">namespaces</a>'
    if ns:
        q = quote(ns, safe="")
        nav += "".join(
            f' <a href="/console/ns/{q}/{part}">{part}</a>'
            for part in ("review", "inbox", "runs", "graph", "persona")
        )
    note = ""
    if flash:
        kind = "flash err" if flash.startswith("error:") else "flash"
        note = f'<div class="{kind}" id="flash">{escape(flash)}</div>'
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)} · memvault"
        f"</title><style>{STYLE}</style></head><body><header><b>memvault console</b>{nav}"
        f'<span style="flex:1"></span><form method="post" action="/console/logout" '
        f'class="inline"><button>log out</button></form></header><main>'
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


# -- login --------------------------------------------------------------------------------------
@router.get("/login", response_class=HTMLResponse)
def login_page(error: str = "") -> str:
    msg = f'<div class="flash err">{escape(error)}</div>' if error else ""
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>log in · memvault</title>"
        f"<style>{STYLE}</style></head><body><main><h2>memvault console</h2>{msg}"
        '<form method="post" action="/console/login"><p>Operator key (an admin API key)</p>'
        '<input type="password" name="key" size="60" autofocus> <button>log in</button>'
        "</form></main></body></html>"
    )


@router.post("/login")
async def login(request: Request) -> Response:
    key = (await _form(request)).get("key", "").strip()
    principal = _keys(request).authenticate(key) if key else None
    if principal is None:
        return RedirectResponse("/console/login?error=unknown+or+revoked+key", status_code=303)
    if not principal.admin:
        return HTMLResponse(
            login_page("a namespace key cannot open the console: use an operator (admin) key"),
            status_code=403,
        )
    expires = str(int(time.time()) + TTL_S)
    token = f"{principal.key_id}.{expires}.{_sign(request, f'{principal.key_id}.{expires}')}"
    response = RedirectResponse("/console", status_code=303)
    response.set_cookie(
        COOKIE, token, max_age=TTL_S, httponly=True, samesite="strict", path="/console"
    )
    return response


@router.post("/logout")
def logout() -> Response:
    response = RedirectResponse("/console/login", status_code=303)
    response.delete_cookie(COOKIE, path="/console")
    return response


# -- pages --------------------------------------------------------------------------------------
@router.get("", response_class=HTMLResponse)
def home(request: Request) -> Response:
    if (r := _guard(request)) is not None:
        return r
    vault = _vault(request)
    rows = []
    for ns in vault.namespaces():
        s = vault.stats(namespace=ns)
        pending = len(vault.review_items(namespace=ns, limit=1000))
        q = quote(ns, safe="")
        rows.append(
            f'<tr><td><a href="/console/ns/{q}/review">{escape(ns)}</a></td>'
            f"<td>{s['episodes']}</td><td>{s['facts']}</td><td>{pending}</td>"
            f"<td>{len(vault.inbox(namespace=ns, limit=1000))}</td></tr>"
        )
    body = (
        "<table><tr><th>namespace</th><th>episodes</th><th>facts</th><th>pending review</th>"
        f"<th>unseen discoveries</th></tr>{''.join(rows)}</table>"
    )
    return HTMLResponse(_page("namespaces", body))


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


@router.get("/ns/{ns}/review", response_class=HTMLResponse)
def review(
    request: Request,
    ns: str,
    reason: str = "",
    min_age: float = 0,
    page: int = 0,
    flash: str = "",
) -> Response:
    if (r := _guard(request)) is not None:
        return r
    every = _vault(request).review_items(
        namespace=ns, limit=100_000, reason=reason or None, oldest_first=True
    )
    every = [i for i in every if _age_days(i) >= min_age]
    page = max(page, 0)
    items = every[page * PAGE : (page + 1) * PAGE]  # oldest first, a page at a time
    q = quote(ns, safe="")
    more = f"reason={quote(reason)}&min_age={min_age:g}"
    pager = f"<p class='muted'>{len(every)} waiting; showing {page * PAGE + 1 if items else 0}"
    pager += f"–{page * PAGE + len(items)}"
    if page:
        pager += f' · <a href="?{more}&page={page - 1}">newer ←</a>'
    if (page + 1) * PAGE < len(every):
        pager += f' · <a href="?{more}&page={page + 1}">older →</a>'
    pager += "</p>"
    filters = (
        '<form method="get" class="inline">reason <select name="reason"><option value="">any'
        "</option>"
        + "".join(
            f"<option{' selected' if reason == code else ''}>{code}</option>"
            for code in (
                "low_confidence",
                "high_impact",
                "large_batch",
                "sensitive",
                "conflicting_verdicts",
            )
        )
        + f'</select> at least <input name="min_age" size="3" value="{min_age:g}"> days old '
        "<button>filter</button></form>"
    )
    rows = []
    for item in items:
        iid = escape(item["id"])
        note = '<input name="note" placeholder="why (kept with the item)" size="24">'
        rows.append(
            f'<tr class="item" data-id="{iid}"><td><code>{iid[:12]}</code><div class="muted">'
            f"{_age_days(item):.1f} days</div></td><td>{escape(item['reason'])}</td>"
            f"<td><table>{_change_rows(item['changes'])}</table></td><td>"
            + _button(request, f"/console/ns/{q}/review/{iid}/approve", "approve")
            + " "
            + _button(request, f"/console/ns/{q}/review/{iid}/reject", "reject", note)
            + "</td></tr>"
        )
    body = (
        filters
        + pager
        + (
            "<table><tr><th>item</th><th>why it waits</th><th>changes</th><th></th></tr>"
            + "".join(rows)
            + "</table>"
            if rows
            else filters + "<p>nothing waits for review</p>"
        )
    )
    return HTMLResponse(_page("review queue", body, ns=ns, flash=flash or None))


@router.post("/ns/{ns}/review/{item_id}/{decision}")
async def decide(request: Request, ns: str, item_id: str, decision: str) -> Response:
    form = await _checked(request)
    if isinstance(form, Response):
        return form
    vault = _vault(request)
    path = f"/console/ns/{quote(ns, safe='')}/review"
    try:
        if decision == "approve":
            applied = vault.approve(item_id, namespace=ns)
            return _back(path, f"approved {item_id[:12]}: {applied} change(s) applied")
        if decision == "reject":
            vault.reject(item_id, namespace=ns, note=form.get("note", ""))
            return _back(path, f"rejected {item_id[:12]}")
    except MemvaultError as exc:
        return _back(path, f"error: {exc}")
    return _back(path, f"error: unknown decision {decision!r}")


@router.get("/ns/{ns}/inbox", response_class=HTMLResponse)
def inbox(request: Request, ns: str, flash: str = "") -> Response:
    if (r := _guard(request)) is not None:
        return r
    q = quote(ns, safe="")
    rows = []
    for d in _vault(request).inbox(namespace=ns, limit=500):
        did = escape(d["id"])
        rows.append(
            f"<tr><td>{escape(str(d.get('kind', '')))}</td>"
            f"<td>{escape(str(d.get('text', d.get('why', ''))))}"
            f"</td><td>{_button(request, f'/console/ns/{q}/inbox/{did}/seen', 'seen')} "
            f"{_button(request, f'/console/ns/{q}/inbox/{did}/dismissed', 'dismiss')}</td></tr>"
        )
    body = (
        "<table><tr><th>kind</th><th>what</th><th></th></tr>" + "".join(rows) + "</table>"
        if rows
        else "<p>no unseen discoveries</p>"
    )
    return HTMLResponse(_page("discovery inbox", body, ns=ns, flash=flash or None))


@router.post("/ns/{ns}/inbox/{item_id}/{status}")
async def mark(request: Request, ns: str, item_id: str, status: str) -> Response:
    form = await _checked(request)
    if isinstance(form, Response):
        return form
    path = f"/console/ns/{quote(ns, safe='')}/inbox"
    try:
        if status not in ("seen", "dismissed"):
            return _back(path, f"error: unknown status {status!r}")
        n = _vault(request).mark_inbox([item_id], status, namespace=ns)  # type: ignore[arg-type]
    except MemvaultError as exc:
        return _back(path, f"error: {exc}")
    return _back(path, f"marked {n} {status}")


@router.get("/ns/{ns}/runs", response_class=HTMLResponse)
def runs(request: Request, ns: str, flash: str = "") -> Response:
    if (r := _guard(request)) is not None:
        return r
    q = quote(ns, safe="")
    rows = "".join(
        f'<tr><td><a href="/console/ns/{q}/runs/{escape(x["run_id"])}">{escape(x["run_id"])}</a>'
        f"</td><td>{escape(str(x.get('status')))}</td><td>{escape(str(x.get('at') or ''))[:19]}"
        f"</td><td>{x.get('applied', '')}</td><td>{x.get('to_review', '')}</td></tr>"
        for x in _vault(request).dream_runs(namespace=ns, limit=100)
    )
    body = (
        "<table><tr><th>run</th><th>status</th><th>when</th><th>applied</th><th>to review</th>"
        f"</tr>{rows}</table>"
        if rows
        else "<p>no dream has run</p>"
    )
    return HTMLResponse(_page("dream runs", body, ns=ns, flash=flash or None))


@router.get("/ns/{ns}/runs/{run_id}", response_class=HTMLResponse)
def run_detail(request: Request, ns: str, run_id: str, flash: str = "") -> Response:
    if (r := _guard(request)) is not None:
        return r
    vault = _vault(request)
    q = quote(ns, safe="")
    try:
        report = vault.dream_report(run_id, namespace=ns)
    except MemvaultError as exc:
        return HTMLResponse(_page("dream run", f"<p>{escape(str(exc))}</p>", ns=ns), 404)
    journal = vault.dreamer.applier.journal_ids(ns, vault.dreamer.applier.run_doc(ns, run_id))
    entries = [
        e
        for j in vault.store.get_docs(ns, "dream_journal", journal)
        for e in j.body.get("entries", [])
    ]
    changes = [{**e, "reasons": [{"op": e.get("op", "?"), "why": ""}]} for e in entries]
    counts = ", ".join(f"{k} ×{v}" for k, v in (report.get("counts") or {}).items())
    undo = (
        _button(
            request,
            f"/console/ns/{q}/runs/{escape(run_id)}/undo",
            "undo this run",
            confirm=f"Undo run {run_id}? Every change it applied is restored.",
        )
        if report.get("status") in ("applied", "applying")
        else f"<p class='muted'>status: {escape(str(report.get('status')))}</p>"
    )
    body = (
        f"<p>{escape(counts or 'no changes')}</p>{undo}<h3>applied changes</h3>"
        f"<table><tr><th>kind</th><th>op</th><th>before → after</th></tr>{_change_rows(changes)}"
        "</table>"
    )
    return HTMLResponse(_page(f"dream run {run_id}", body, ns=ns, flash=flash or None))


@router.post("/ns/{ns}/runs/{run_id}/undo")
async def undo(request: Request, ns: str, run_id: str) -> Response:
    form = await _checked(request)
    if isinstance(form, Response):
        return form
    path = f"/console/ns/{quote(ns, safe='')}/runs/{quote(run_id, safe='')}"
    try:
        n = _vault(request).undo_dream(run_id, namespace=ns)
    except MemvaultError as exc:
        return _back(path, f"error: {exc}")
    return _back(path, f"undone: {n} change(s) restored")


@router.get("/ns/{ns}/graph", response_class=HTMLResponse)
def graph(request: Request, ns: str) -> Response:
    if (r := _guard(request)) is not None:
        return r
    view = _vault(request).graph(namespace=ns)
    edges = view.edges()
    partition = view.communities(edges)
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
    svg = (
        f'<svg id="graph" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'style="background:#fff">{lines}{"".join(dots)}</svg>'
    )
    body = (
        f"<p>{len(pos)} entities, {len(edges)} composite edges, {len(partition.communities)} "
        f"communities (modularity {partition.modularity:.3f})</p>{svg}"
    )
    return HTMLResponse(_page("communities", body, ns=ns))


@router.get("/ns/{ns}/persona", response_class=HTMLResponse)
def persona(request: Request, ns: str) -> Response:
    if (r := _guard(request)) is not None:
        return r
    vault = _vault(request)
    att = "".join(
        f"<tr><td>{escape(a['status'])}</td><td>{escape(a['category'])}</td>"
        f"<td>{escape(a['statement'])}</td><td>{a['confidence_now']:.2f}</td>"
        f"<td>{a['version']}</td></tr>"
        for a in vault.attitudes(namespace=ns, history=True)
    )
    sk = "".join(
        f"<tr><td>{escape(s['name'])}</td><td>{s['level']}</td><td>{escape(s['why'])}</td></tr>"
        for s in vault.skills(namespace=ns)
    )
    body = (
        "<h3>attitudes</h3><table><tr><th>status</th><th>category</th><th>statement</th>"
        f"<th>confidence</th><th>version</th></tr>{att}</table><h3>skills</h3><table><tr>"
        f"<th>skill</th><th>level</th><th>why</th></tr>{sk}</table>"
    )
    return HTMLResponse(_page("persona", body, ns=ns))
