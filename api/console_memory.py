"""The console's memory pages: browse and search a namespace's memories, read one with its
history (its versions, the dream runs that changed it, the facts drawn from it on a
timeline), correct or forget it (a confirmation and the session's CSRF token, through the
same capabilities as every other surface), and an entity's page: its facts over time and its
neighbours. Reading a page is not a use: nothing here records an access or warms a tier."""

from __future__ import annotations

from datetime import datetime
from html import escape
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from api.console_html import _back, _button, _checked, _guard, _page, _session, _vault
from api.console_plots import ego_svg, fact_state, tiers_by_month_svg, timeline_svg
from memvault.changes.docs import JOURNAL, RUN
from memvault.errors import MemvaultError
from memvault.kg.model import Episode, Fact
from memvault.vault import MemVault

router = APIRouter(prefix="/console", include_in_schema=False)
SHOWN = 200  # memories per page


def _q(text: str) -> str:
    return quote(text, safe="")


def _memory_link(ns: str, e: Episode, text: str | None = None) -> str:
    label = text if text is not None else e.content[:300]
    return f'<a href="/console/ns/{_q(ns)}/memories/{_q(e.id)}">{escape(label)}</a>'


def _level(e: Episode) -> str:
    level = (e.metadata.get("digest") or {}).get("level")
    return f"{e.tier.value} · {level}" if level else e.tier.value


def _operator(request: Request) -> str:
    return f"console (key {(_session(request) or '').split('.')[0]})"  # the key id, not the cookie


@router.get("/ns/{ns}/memories", response_class=HTMLResponse)
def memories(
    request: Request, ns: str, q: str = "", flash: str = "", offset: int = 0, retired: int = 0
) -> Response:
    """The namespace's memories, newest first, those containing ``q`` (in the text or the
    speaker), ``SHOWN`` a page; ``retired=1`` also lists the corrected and merged ones."""
    if (r := _guard(request)) is not None:
        return r
    vault = _vault(request)
    try:
        found = vault.episodes(namespace=ns, limit=1_000_000)
    except MemvaultError as exc:
        return HTMLResponse(_page(request, "memories", f"<p>{escape(str(exc))}</p>", ns=ns), 404)
    pool = [e for e in reversed(found) if retired or e.expired_at is None]
    needle = q.lower().strip()
    matches = [
        e for e in pool if needle in e.content.lower() or needle in (e.speaker or "").lower()
    ]
    offset = max(offset, 0)
    shown = matches[offset : offset + SHOWN]
    path = f"/console/ns/{_q(ns)}/memories"
    rows = "".join(
        f'<tr class="memory" data-id="{escape(e.id)}"><td>{escape(e.occurred_at.isoformat()[:10])}'
        f"</td><td>{escape(e.speaker or '')}</td><td>{escape(_level(e))}"
        f"{' · retired' if e.expired_at else ''}</td><td>{_memory_link(ns, e)}</td><td>"
        + (
            ""
            if e.expired_at
            else _button(
                request,
                f"{path}/{_q(e.id)}/forget",
                "forget",
                confirm="Forget this memory for good? It and what is derived only from it are "
                "erased; this cannot be undone.",
            )
        )
        + "</td></tr>"
        for e in shown
    )
    keep = f"&q={_q(q)}&retired={retired}"
    more = (
        f'<a id="next" href="{path}?offset={offset + SHOWN}{keep}">next {SHOWN}</a>'
        if offset + SHOWN < len(matches)
        else ""
    )
    months: dict[str, dict[str, int]] = {}
    for e in pool:
        if e.expired_at is None:
            cell = months.setdefault(e.occurred_at.strftime("%Y-%m"), {})
            cell[e.tier.value] = cell.get(e.tier.value, 0) + 1
    search = (
        f'<form method="get" class="inline"><input name="q" value="{escape(q)}" '
        'placeholder="words in the memory or its speaker"> <label><input type="checkbox" '
        f'name="retired" value="1"{" checked" if retired else ""}> retired too</label> '
        "<button>search</button></form>"
    )
    body = (
        f"{search}<p class='muted'>{len(matches)} of {len(pool)} memories; showing "
        f"{offset + 1 if shown else 0}–{offset + len(shown)}</p>"
        "<table><tr><th>when</th><th>who</th><th>tier</th><th>memory</th><th></th></tr>"
        f"{rows}</table><p>{more}</p><h3>tiers over time</h3>"
        + tiers_by_month_svg(sorted(months.items()))
    )
    return HTMLResponse(_page(request, "memories", body, ns=ns, flash=flash or None))


@router.get("/ns/{ns}/memories/{episode_id}", response_class=HTMLResponse)
def memory(request: Request, ns: str, episode_id: str, flash: str = "") -> Response:
    """One memory: what it says and where it stands, its versions, the dream runs that
    changed it, the facts drawn from it; correct and forget."""
    if (r := _guard(request)) is not None:
        return r
    vault = _vault(request)
    try:
        e = vault.get_episode(episode_id, namespace=ns)
    except MemvaultError as exc:
        return HTMLResponse(_page(request, "memory", f"<p>{escape(str(exc))}</p>", ns=ns), 404)
    path = f"/console/ns/{_q(ns)}/memories/{_q(e.id)}"
    digest = e.metadata.get("digest") or {}
    shown_as = (
        f" <span class='muted'>({e.tier.value} · {escape(str(digest['level']))}: "
        f"{digest.get('chars_before', '?')} characters before, one way)</span>"
        if digest
        else ""
    )
    fields = [
        ("happened", e.occurred_at.isoformat()),
        ("written", e.created_at.isoformat()),
        ("who", e.speaker or "—"),
        ("session", e.session_id or "—"),
        ("type · tier", f"{e.type.value} · {e.tier.value}"),
        ("importance", f"{e.importance:.2f}"),
        ("uses · confirmations", f"{e.access_count} · {e.reinforced_count}"),
        ("retired", e.expired_at.isoformat() if e.expired_at else "no: live"),
    ]
    table = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in fields)
    facts = [
        f
        for f in vault.facts(namespace=ns, include_history=True, limit=1_000_000)
        if e.id in f.source_episode_ids
    ]
    now = vault.now()
    body = (
        f'<blockquote id="text">{escape(e.content)}</blockquote>{shown_as}'
        f"<table>{table}</table><h3>versions</h3>{_versions(vault, ns, e)}"
        f"<h3>dream runs that changed it</h3>{_runs(vault, ns, e.id)}"
        f"<h3>facts drawn from it</h3>{timeline_svg(facts, now)}{_fact_rows(ns, facts, now)}"
    )
    if e.expired_at is None:
        body += (
            "<h3>correct it</h3><p class='muted'>The corrected text is written as a new memory; "
            "this one is retired and kept in the history, marked as corrected.</p>"
            + _button(
                request,
                f"{path}/correct",
                "save the correction",
                extra=f'<textarea name="text" rows="3" cols="90">{escape(e.content)}</textarea>'
                "<br>",
                confirm="Save the corrected version? The old one stays in the history.",
            )
            + "<h3>forget it</h3>"
            + _button(
                request,
                f"{path}/forget",
                "forget",
                confirm="Forget this memory for good? It and what is derived only from it are "
                "erased; this cannot be undone.",
            )
        )
    return HTMLResponse(_page(request, "memory", body, ns=ns, flash=flash or None))


def _versions(vault: MemVault, ns: str, e: Episode) -> str:
    links: list[tuple[str, str]] = []
    if old := e.metadata.get("corrects"):
        links.append(("corrects", str(old)))
    if new := e.metadata.get("corrected_by"):
        links.append(("corrected by", str(new)))
    links += [(f"replaced ({r.attribute}, by {r.by}) by", r.episode_id) for r in e.replaced_by]
    links += [("absorbed", str(i)) for i in e.metadata.get("merged_from", [])]
    if not links:
        return "<p class='muted'>none: this is the only version</p>"
    found = {x.id: x for x in vault.store.get_episodes(ns, [i for _, i in links])}

    def link(i: str) -> str:
        if i in found:
            return _memory_link(ns, found[i], found[i].content[:160])
        return f"<code>{escape(i)}</code> <span class='muted'>(forgotten)</span>"

    items = "".join(f"<li>{escape(what)} {link(i)}</li>" for what, i in links)
    return f'<ul id="versions">{items}</ul>'


def _runs(vault: MemVault, ns: str, rid: str) -> str:
    seen: dict[str, list[str]] = {}
    for doc in vault.store.list_docs(ns, JOURNAL, limit=1_000_000):
        for entry in doc.body.get("entries", []):
            if entry.get("id") == rid:
                seen.setdefault(str(doc.body.get("run_id")), []).append(str(entry.get("op")))
    if not seen:
        return "<p class='muted'>none</p>"
    runs = {d.id: d for d in vault.store.get_docs(ns, RUN, list(seen))}
    rows = "".join(
        f'<tr><td><a href="/console/ns/{_q(ns)}/runs/{_q(run_id)}">{escape(run_id)}</a></td>'
        f"<td>{escape(runs[run_id].status or '') if run_id in runs else ''}</td>"
        f"<td>{escape(', '.join(sorted(set(ops))))}</td></tr>"
        for run_id, ops in sorted(seen.items())
    )
    return (
        f"<table id='runs'><tr><th>run</th><th>status</th><th>what it did</th></tr>{rows}</table>"
    )


def _fact_rows(ns: str, facts: list[Fact], now: datetime) -> str:
    if not facts:
        return ""

    def entity(name: str) -> str:
        return f'<a href="/console/ns/{_q(ns)}/entities/{_q(name)}">{escape(name)}</a>'

    rows = "".join(
        f'<tr class="fact {fact_state(f, now)}"><td>{fact_state(f, now)}</td><td>'
        f"{entity(f.subject)} <code>{escape(f.predicate)}</code> "
        f"{entity(f.object) if f.object_id else escape(f.object)}</td>"
        f"<td>{escape(f.valid_at.date().isoformat())}</td>"
        f"<td>{escape(f.invalid_at.date().isoformat()) if f.invalid_at else '—'}</td>"
        f"<td>{len(f.source_episode_ids)}</td></tr>"
        for f in sorted(facts, key=lambda f: (f.valid_at, f.id))
    )
    return (
        "<table><tr><th>state</th><th>fact</th><th>valid from</th><th>until</th>"
        f"<th>sources</th></tr>{rows}</table>"
    )


@router.post("/ns/{ns}/memories/{episode_id}/correct")
async def correct(request: Request, ns: str, episode_id: str) -> Response:
    form = await _checked(request)
    if isinstance(form, Response):
        return form
    path = f"/console/ns/{_q(ns)}/memories"
    try:
        done = _vault(request).correct(
            episode_id, form.get("text", ""), namespace=ns, by=_operator(request)
        )
    except MemvaultError as exc:
        return _back(f"{path}/{_q(episode_id)}", f"error: {exc}")
    return _back(
        f"{path}/{_q(done.new_id)}",
        f"corrected: the old version is retired and kept in the history; "
        f"{len(done.facts_retired)} facts drawn only from it retired",
    )


@router.post("/ns/{ns}/memories/{episode_id}/forget")
async def forget(request: Request, ns: str, episode_id: str) -> Response:
    form = await _checked(request)
    if isinstance(form, Response):
        return form
    path = f"/console/ns/{_q(ns)}/memories"
    try:
        plan = _vault(request).forget(episode_id, namespace=ns, by=_operator(request))
    except MemvaultError as exc:
        return _back(path, f"error: {exc}")
    return _back(
        path,
        f"forgotten {episode_id[:12]}: {len(plan.episode_ids)} memory, {len(plan.fact_ids)} "
        f"facts and {len(plan.entity_ids)} entities erased; {len(plan.facts_kept)} facts kept",
    )


@router.get("/ns/{ns}/entities/{name}", response_class=HTMLResponse)
def entity(request: Request, ns: str, name: str) -> Response:
    """An entity: its facts over time (as subject or object, history included), the
    entities it is linked to by them, and the memories that name it."""
    if (r := _guard(request)) is not None:
        return r
    vault = _vault(request)
    found = vault.store.find_entities(ns, [name])
    if not found:
        body = f"<p>no entity named {escape(name)} in {escape(ns)}</p>"
        return HTMLResponse(_page(request, "entity", body, ns=ns), 404)
    ids = [x.id for x in found]
    facts = vault.store.facts_about(ns, ids, include_expired=True)
    now = vault.now()
    neighbours = sorted(
        {
            other
            for f in facts
            for other, oid in ((f.subject, f.subject_id), (f.object, f.object_id))
            if oid and oid not in ids
        }
    )
    named = [i for i, _ in vault.store.episodes_mentioning(ns, ids, 50)]
    episodes = sorted(
        vault.store.get_episodes(ns, named), key=lambda e: e.occurred_at, reverse=True
    )
    ego = ego_svg(
        found[0].name,
        [
            (other, f.predicate, fact_state(f, now))
            for f in facts
            for other, oid in ((f.subject, f.subject_id), (f.object, f.object_id))
            if oid and oid not in ids
        ],
    )
    links = " · ".join(
        f'<a href="/console/ns/{_q(ns)}/entities/{_q(n)}">{escape(n)}</a>' for n in neighbours
    )
    mems = "".join(
        f"<li>{escape(e.occurred_at.isoformat()[:10])} {_memory_link(ns, e, e.content[:200])}</li>"
        for e in episodes
    )
    kinds = ", ".join(sorted({x.type for x in found}))
    body = (
        f"<p class='muted'>{escape(kinds)} · {len(facts)} facts · {len(episodes)} memories "
        f"name it</p><h3>its facts over time</h3>{timeline_svg(facts, now)}"
        f"{_fact_rows(ns, facts, now)}<h3>linked to</h3>{ego}<p id='neighbours'>{links or '—'}</p>"
        f"<h3>memories that name it</h3><ul>{mems}</ul>"
    )
    return HTMLResponse(_page(request, f"entity {found[0].name}", body, ns=ns))
