"""The operator console at ``/console``: a namespace's memories (search, forget), the review
queue, the discovery inbox, dream runs (with undo), its communities and its persona, in the
browser (docs/server.md).

Server-rendered HTML from Jinja2 templates (``api/templates/console``, autoescaped), no
JavaScript library and nothing loaded from elsewhere (one inline stylesheet; a ``confirm()``
before undo and before forget). Only an operator (admin) key
opens it: the key is checked once at login, then the browser holds a signed session cookie
(HttpOnly, SameSite=Strict, 8 hours; its key is checked again on every request, so revoking
the key ends the session), and every form carries a token derived from the session (CSRF).
"""

from __future__ import annotations

import time
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from api.console_html import (
    COOKIE,
    PAGE,
    TTL_S,
    _age_days,
    _back,
    _changes,
    _checked,
    _form,
    _guard,
    _keys,
    _message,
    _page,
    _sign,
    _vault,
    communities_svg,
    render,
)
from api.console_plots import bars_svg
from api.security import Denied, admit
from memvault.changes.docs import after_of
from memvault.errors import MemvaultError

router = APIRouter(prefix="/console", include_in_schema=False)
REASONS = ("low_confidence", "high_impact", "large_batch", "sensitive", "conflicting_verdicts")


# -- login --------------------------------------------------------------------------------------
@router.get("/login", response_class=HTMLResponse)
def login_page(error: str = "") -> str:
    return str(render("login.html", title="log in", ns=None, flash=None, error=error))


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
        rows.append(
            {
                "ns": ns,
                "episodes": s["episodes"],
                "facts": s["facts"],
                "pending": len(vault.review_items(namespace=ns, limit=1000)),
                "unseen": len(vault.inbox(namespace=ns, limit=1000)),
            }
        )
    return _page(request, "namespaces", "home.html", rows=rows)


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
    return _page(
        request,
        "review queue",
        "review.html",
        ns=ns,
        flash=flash,
        reasons=REASONS,
        reason=reason,
        min_age=f"{min_age:g}",
        more=f"reason={quote(reason)}&min_age={min_age:g}",
        total=len(every),
        first=page * PAGE + 1 if items else 0,
        last=page * PAGE + len(items),
        newer=page - 1 if page else None,
        older=page + 1 if (page + 1) * PAGE < len(every) else None,
        items=[{**i, "age": _age_days(i), "changes": _changes(i["changes"])} for i in items],
    )


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
    items = [
        {
            "id": d["id"],
            "kind": str(d.get("kind", "")),
            "text": str(d.get("text", d.get("why", ""))),
        }
        for d in _vault(request).inbox(namespace=ns, limit=500)
    ]
    return _page(request, "discovery inbox", "inbox.html", ns=ns, flash=flash, items=items)


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
    found = [
        {
            "run_id": x["run_id"],
            "status": str(x.get("status")),
            "at": str(x.get("at") or ""),
            "applied": x.get("applied", ""),
            "to_review": x.get("to_review", ""),
        }
        for x in _vault(request).dream_runs(namespace=ns, limit=100)
    ]
    return _page(request, "dream runs", "runs.html", ns=ns, flash=flash, runs=found)


@router.get("/ns/{ns}/runs/{run_id}", response_class=HTMLResponse)
def run_detail(request: Request, ns: str, run_id: str, flash: str = "") -> Response:
    if (r := _guard(request)) is not None:
        return r
    vault = _vault(request)
    try:
        report = vault.dream_report(run_id, namespace=ns)
    except MemvaultError as exc:
        return _message(request, "dream run", str(exc), ns, 404)
    journal = vault.dreamer.applier.journal_ids(ns, vault.dreamer.applier.run_doc(ns, run_id))
    entries = [
        e
        for j in vault.store.get_docs(ns, "dream_journal", journal)
        for e in j.body.get("entries", [])
    ]
    changes = [
        {**e, "after": after_of(e), "reasons": [{"op": e.get("op", "?"), "why": ""}]}
        for e in entries
    ]
    return _page(
        request,
        f"dream run {run_id}",
        "run.html",
        ns=ns,
        flash=flash,
        run_id=run_id,
        counts=", ".join(f"{k} ×{v}" for k, v in (report.get("counts") or {}).items()),
        undoable=report.get("status") in ("applied", "applying"),
        status=str(report.get("status")),
        changes=_changes(changes),
    )


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
    return _page(
        request,
        "communities",
        "graph.html",
        ns=ns,
        svg=svg,
        drawn=drawn,
        edges=len(edges),
        communities=len(partition.communities),
        modularity=partition.modularity,
    )


@router.get("/ns/{ns}/persona", response_class=HTMLResponse)
def persona(request: Request, ns: str) -> Response:
    if (r := _guard(request)) is not None:
        return r
    vault = _vault(request)
    windows = [
        {
            "days": days,
            "recalls": w["recalls"],
            "svg": bars_svg([(str(n), int(c)) for n, c in w["entities"]], css="interests"),
        }
        for days, w in sorted(
            vault.profile(namespace=ns)["windows"].items(), key=lambda kv: int(kv[0])
        )
    ]
    return _page(
        request,
        "persona",
        "persona.html",
        ns=ns,
        windows=windows,
        attitudes=vault.attitudes(namespace=ns, history=True),
        skills=vault.skills(namespace=ns),
    )
