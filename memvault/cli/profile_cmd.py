"""``memvault verdict``, ``gaps``, ``profile``, ``diary`` and ``prefetch``: what the person has
been caring about (docs/gaps.md)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from memvault.cli.output import (
    JsonOpt,
    NamespaceOpt,
    console,
    emit,
    handle_errors,
    open_vault,
    parse_time,
)


def verdict(
    recall_id: Annotated[str, typer.Argument(help="The recall's id (printed after its hits).")],
    value: Annotated[str, typer.Argument(help="correct | incorrect | ambiguous")],
    hit: Annotated[
        str | None, typer.Option("--hit", help="One hit's id (default: the whole answer).")
    ] = None,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Say how a recall went. A correct hit is reinforced, an incorrect one loses importance;
    two incorrect answers to one question open a knowledge gap (memvault gaps), a correct one
    closes it."""
    with open_vault() as vault:
        out = vault.verdict(recall_id, value, hit_id=hit, namespace=namespace)
    gap = out["gap"]
    emit(
        out,
        as_json,
        lambda: console.print(
            f"{value}; knowledge gap on '{gap['signature']}': {gap['status'] or 'none'}"
        ),
    )


def profile(
    namespace: NamespaceOpt = None,
    now: Annotated[str | None, typer.Option(help="As of this time (ISO date).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """What you have been caring about: entities written about and asked after over 7 / 30 /
    90 days (profile.windows), the intents asked, and what is rising and cooling."""
    with open_vault() as vault:
        data = vault.profile(namespace=namespace, now=parse_time(now, "--now"))

    def render() -> None:
        table = Table("window", "entities", "topics", "intents", "recalls")
        for days, w in data["windows"].items():
            ents = ", ".join(f"{escape(n)} {c}" for n, c in w["entities"][:6]) or "-"
            topics = "; ".join(f"{escape(n)} {c}" for n, c in w["topics"][:3]) or "-"
            intents = ", ".join(f"{i} {c}" for i, c in w["intents"]) or "-"
            table.add_row(f"{days} days", ents, topics, intents, str(w["recalls"]))
        console.print(table)
        console.print(f"rising: {', '.join(data['rising']) or '-'}")
        console.print(f"cooling: {', '.join(data['cooling']) or '-'}")
        if data["quiet"]:
            days = min(int(d) for d in data["windows"])
            console.print(f"[dim]nothing written or asked in the last {days} days: a pause[/]")

    emit(data, as_json, render)


def prefetch(
    session: Annotated[str, typer.Argument(help="The session to warm.")],
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Predict a session's next questions (its repeats, the namespace's frequent question
    shapes filled with what it just talked about, rising names) and warm their results;
    `memvault recall --session` is then served from them until the next write."""
    with open_vault() as vault:
        out = vault.prefetch(session, namespace=namespace)

    def render() -> None:
        for w in out["warmed"]:
            console.print(f"{escape(w['query'])}  [dim]({escape(w['why'])})[/]")
        console.print(f"{len(out['warmed'])} warmed, {out['dropped']} stale entries dropped")

    emit(out, as_json, render)


def diary(
    namespace: NamespaceOpt = None,
    date: Annotated[
        str | None, typer.Option("--date", help="The day, YYYY-MM-DD (default: today).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """The diary page of a day: what you wrote and asked, the entities on your mind (by
    centrality that day), and what appeared or disappeared since the day before. Written
    by each dream and the nightly check; a day with no snapshot is computed now."""
    with open_vault() as vault:
        page = vault.diary(date=date, namespace=namespace)
    from memvault.profile.diary import render

    emit(page, as_json, lambda: console.print(escape(render(page))))


def gaps(namespace: NamespaceOpt = None, as_json: JsonOpt = False) -> None:
    """Knowledge gaps: questions the vault keeps failing (two or more incorrect verdicts) and
    structural ones (an entity talked about a lot that no fact names), each with its kind."""
    with open_vault() as vault:
        rows = vault.gaps(namespace=namespace)

    def render() -> None:
        if not rows:
            console.print("no knowledge gaps")
            return
        table = Table("kind", "what", "detail")
        for g in rows:
            if g["kind"] == "recall_failure":
                what = g["signature"]
                detail = f"{g['fail_count']}× incorrect; e.g. " + "; ".join(g["examples"][:2])
            else:
                what, detail = (
                    str(g.get("title") or g.get("id")),
                    str(g.get("why") or g.get("text") or ""),
                )
            table.add_row(g["kind"], escape(what), escape(detail))
        console.print(table)

    emit(rows, as_json, render)


def register(app: typer.Typer) -> None:
    app.command()(handle_errors(verdict))
    app.command()(handle_errors(profile))
    app.command()(handle_errors(prefetch))
    app.command()(handle_errors(diary))
    app.command()(handle_errors(gaps))
