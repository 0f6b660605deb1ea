"""The operator console at ``/console``: a namespace's memories (search, forget), the review
queue, the discovery inbox, dream runs (with undo), its communities and its persona, in the
browser (docs/server.md).

Server-rendered HTML, no JavaScript library and nothing loaded from elsewhere (one inline
stylesheet; a ``confirm()`` before undo and before forget). Only an operator (admin) key
opens it: the key is checked once at login, then the browser holds a signed session cookie
(HttpOnly, SameSite=Strict, 8 hours; its key is checked again on every request, so revoking
the key ends the session), and every form carries a token derived from the session (CSRF).
"""

from __future__ import annotations

import time
from html import escape
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from api.console_html import (
    COOKIE,
    PAGE,
    STYLE,
    TTL_S,
    _age_days,
    _back,
    _button,
    _change_rows,
    _checked,
    _form,
    _guard,
    _keys,
    _page,
    _sign,
    _vault,
    communities_svg,
)
from api.console_plots import bars_svg
from api.security import Denied, admit
from memvault.errors import MemvaultError

router = APIRouter(prefix="/console", include_in_schema=False)


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
    client = request.client.host if request.client else "unknown"
    principal = admit(_keys(request), request.app.state.throttle, client, key)
    if isinstance(principal, Denied):
        if principal.status == 429:  # the same brake as the API's: guessing stops here too
            page = login_page(principal.message)
            headers = {"Retry-After": str(principal.retry_after)}
            return HTMLResponse(page, status_code=429, headers=headers)
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
async def logout(request: Request) -> Response:
    """Ends the session; like every console form it carries the CSRF token, so another site
    cannot log an operator out."""
    if isinstance(form := await _checked(request), Response):
        return form
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
    return HTMLResponse(_page(request, "namespaces", body))


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
    return HTMLResponse(_page(request, "review queue", body, ns=ns, flash=flash or None))


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
    return HTMLResponse(_page(request, "discovery inbox", body, ns=ns, flash=flash or None))


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
    return HTMLResponse(_page(request, "dream runs", body, ns=ns, flash=flash or None))


@router.get("/ns/{ns}/runs/{run_id}", response_class=HTMLResponse)
def run_detail(request: Request, ns: str, run_id: str, flash: str = "") -> Response:
    if (r := _guard(request)) is not None:
        return r
    vault = _vault(request)
    q = quote(ns, safe="")
    try:
        report = vault.dream_report(run_id, namespace=ns)
    except MemvaultError as exc:
        return HTMLResponse(_page(request, "dream run", f"<p>{escape(str(exc))}</p>", ns=ns), 404)
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
    return HTMLResponse(_page(request, f"dream run {run_id}", body, ns=ns, flash=flash or None))


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
    svg, drawn = communities_svg(view, edges, partition)
    body = (
        f"<p>{drawn} entities, {len(edges)} composite edges, {len(partition.communities)} "
        f"communities (modularity {partition.modularity:.3f})</p>{svg}"
    )
    return HTMLResponse(_page(request, "communities", body, ns=ns))


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
    windows = vault.profile(namespace=ns)["windows"]
    interests = "".join(
        f'<div class="window" data-days="{escape(days)}"><h4>last {escape(days)} days: '
        f"{w['recalls']} recalls</h4>"
        + bars_svg([(str(n), int(c)) for n, c in w["entities"]], css="interests")
        + "</div>"
        for days, w in sorted(windows.items(), key=lambda kv: int(kv[0]))
    )
    body = (
        "<h3>interests: entities written about and asked after</h3>"
        f"{interests}"
        "<h3>attitudes</h3><table><tr><th>status</th><th>category</th><th>statement</th>"
        f"<th>confidence</th><th>version</th></tr>{att}</table><h3>skills</h3><table><tr>"
        f"<th>skill</th><th>level</th><th>why</th></tr>{sk}</table>"
    )
    return HTMLResponse(_page(request, "persona", body, ns=ns))
