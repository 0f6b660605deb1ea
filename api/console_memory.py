"""The console's memory pages: browse and search a namespace's memories, read one with its
history (its versions, the dream runs that changed it, the facts drawn from it on a
timeline), correct or forget it (a confirmation and the session's CSRF token, through the
same capabilities as every other surface), and an entity's page: its facts over time and its
neighbours. Reading a page is not a use: nothing here records an access or warms a tier."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup

from api.console_html import _back, _checked, _guard, _message, _page, _session, _vault, render
from api.console_plots import ego_svg, fact_state, tiers_by_month_svg, timeline_svg
from memvault.changes.docs import JOURNAL, RUN
from memvault.errors import MemvaultError
from memvault.kg.model import Episode, Fact
from memvault.vault import MemVault

router = APIRouter(prefix="/console", include_in_schema=False)
SHOWN = 200  # memories per page
FORGET = (
    "Forget this memory for good? It and what is derived only from it are erased; this "
    "cannot be undone."
)


def _q(text: str) -> str:
    return quote(text, safe="")


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
        return _message(request, "memories", str(exc), ns, 404)
    pool = [e for e in reversed(found) if retired or e.expired_at is None]
    needle = q.lower().strip()
    matches = [
        e for e in pool if needle in e.content.lower() or needle in (e.speaker or "").lower()
    ]
    offset = max(offset, 0)
    shown = matches[offset : offset + SHOWN]
    months: dict[str, dict[str, int]] = {}
    for e in pool:
        if e.expired_at is None:
            cell = months.setdefault(e.occurred_at.strftime("%Y-%m"), {})
            cell[e.tier.value] = cell.get(e.tier.value, 0) + 1
    return _page(
        request,
        "memories",
        "memories.html",
        ns=ns,
        flash=flash,
        q=q,
        retired=retired,
        path=f"/console/ns/{_q(ns)}/memories",
        matches=len(matches),
        pool=len(pool),
        first=offset + 1 if shown else 0,
        last=offset + len(shown),
        shown=[
            {
                "id": e.id,
                "when": e.occurred_at.isoformat()[:10],
                "speaker": e.speaker or "",
                "level": _level(e),
                "retired": e.expired_at is not None,
                "content": e.content,
            }
            for e in shown
        ],
        next_offset=offset + SHOWN if offset + SHOWN < len(matches) else None,
        page=SHOWN,
        forget_confirm=FORGET,
        tiers_svg=tiers_by_month_svg(sorted(months.items())),
    )


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
        return _message(request, "memory", str(exc), ns, 404)
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
    facts = [
        f
        for f in vault.facts(namespace=ns, include_history=True, limit=1_000_000)
        if e.id in f.source_episode_ids
    ]
    now = vault.now()
    return _page(
        request,
        "memory",
        "memory.html",
        ns=ns,
        flash=flash,
        e=e,
        digest=e.metadata.get("digest") or {},
        fields=fields,
        versions=_versions(vault, ns, e),
        runs=_runs(vault, ns, e.id),
        timeline=timeline_svg(facts, now),
        fact_rows=_fact_rows(ns, facts, now),
        path=f"/console/ns/{_q(ns)}/memories/{_q(e.id)}",
        forget_confirm=FORGET,
    )


def _versions(vault: MemVault, ns: str, e: Episode) -> list[tuple[str, str, Episode | None]]:
    """(how it is linked, the other version's id, that version or None if forgotten)."""
    links: list[tuple[str, str]] = []
    if old := e.metadata.get("corrects"):
        links.append(("corrects", str(old)))
    if new := e.metadata.get("corrected_by"):
        links.append(("corrected by", str(new)))
    links += [(f"replaced ({r.attribute}, by {r.by}) by", r.episode_id) for r in e.replaced_by]
    links += [("absorbed", str(i)) for i in e.metadata.get("merged_from", [])]
    found = {x.id: x for x in vault.store.get_episodes(ns, [i for _, i in links])}
    return [(what, i, found.get(i)) for what, i in links]


def _runs(vault: MemVault, ns: str, rid: str) -> list[tuple[str, str, str]]:
    """(run id, its status, what it did) of each dream run that changed the memory."""
    seen: dict[str, list[str]] = {}
    for doc in vault.store.list_docs(ns, JOURNAL, limit=1_000_000):
        for entry in doc.body.get("entries", []):
            if entry.get("id") == rid:
                seen.setdefault(str(doc.body.get("run_id")), []).append(str(entry.get("op")))
    runs = {d.id: d for d in vault.store.get_docs(ns, RUN, list(seen))}
    return [
        (run_id, (runs[run_id].status or "") if run_id in runs else "", ", ".join(sorted(set(ops))))
        for run_id, ops in sorted(seen.items())
    ]


def _fact_rows(ns: str, facts: list[Fact], now: datetime) -> Markup:
    ordered = sorted(facts, key=lambda f: (f.valid_at, f.id))
    return render("fact_rows.html", ns=ns, facts=[(f, fact_state(f, now)) for f in ordered])


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
        return _message(request, "entity", f"no entity named {name} in {ns}", ns, 404)
    ids = [x.id for x in found]
    facts = vault.store.facts_about(ns, ids, include_expired=True)
    now = vault.now()
    links = [
        (other, f.predicate, fact_state(f, now))
        for f in facts
        for other, oid in ((f.subject, f.subject_id), (f.object, f.object_id))
        if oid and oid not in ids
    ]
    named = [i for i, _ in vault.store.episodes_mentioning(ns, ids, 50)]
    episodes = sorted(
        vault.store.get_episodes(ns, named), key=lambda e: e.occurred_at, reverse=True
    )
    return _page(
        request,
        f"entity {found[0].name}",
        "entity.html",
        ns=ns,
        kinds=", ".join(sorted({x.type for x in found})),
        facts=len(facts),
        episodes=episodes,
        timeline=timeline_svg(facts, now),
        fact_rows=_fact_rows(ns, facts, now),
        ego=ego_svg(found[0].name, links),
        neighbours=sorted({other for other, _, _ in links}),
    )
