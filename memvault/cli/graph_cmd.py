"""``memvault graph``: composite edges, Leiden communities, personalised PageRank."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich.table import Table

from memvault.cli.output import (
    JsonOpt,
    NamespaceOpt,
    console,
    emit,
    err_console,
    handle_errors,
    open_vault,
)

if TYPE_CHECKING:
    from memvault.graphs import GraphView

graph_app = typer.Typer(
    rich_markup_mode="markdown",
    help="The entity graph: edges, communities, PageRank.",
    no_args_is_help=True,
)


def _unread(view: GraphView, as_json: bool) -> None:
    """Say when names still wait for their meaning vectors (a deferred write brought them):
    until catch-up their edges have no meaning signal."""
    waiting = sum(1 for e in view.ws.entities if e not in view.vectors)
    if waiting and not as_json:
        err_console.print(
            f"[yellow]{waiting} of {len(view.ws.entities)} names wait for their meaning "
            "vectors[/]: their edges read no meaning until `memvault catch-up` embeds them"
        )


@graph_app.command("edges")
@handle_errors
def edges(
    limit: Annotated[int, typer.Option(help="Strongest edges shown.")] = 20,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Composite edges (five signals) above the threshold, strongest first."""
    from memvault.graphs import edge_json

    with open_vault() as vault:
        view = vault.graph(namespace=namespace)
        _unread(view, as_json)
        found = view.edges()
        data = [edge_json(view, e) for e in found[:limit]]

    def render() -> None:
        table = Table("a", "b", "composite", *(k for k in data[0]["signals"]) if data else ())
        for row in data:
            table.add_row(
                row["a"],
                row["b"],
                f"{row['composite']:.3f}",
                *(f"{v:.2f}" for v in row["signals"].values()),
            )
        console.print(table if data else "no edges above the threshold")
        console.print(f"{len(found)} edges in all")

    emit(data, as_json, render)


@graph_app.command("communities")
@handle_errors
def communities(
    resolution: Annotated[float | None, typer.Option(help="Leiden resolution.")] = None,
    scan: Annotated[bool, typer.Option(help="One partition per configured resolution.")] = False,
    summarize: Annotated[
        bool,
        typer.Option(help="Name and summarise the largest (graph__summaries) via the LLM port."),
    ] = False,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Leiden communities over the composite edges, each with its top members."""
    from memvault.graphs import summarize as summarize_communities

    if resolution is not None and resolution <= 0:
        from memvault.errors import InvalidInputError

        raise InvalidInputError("must be positive", field="--resolution")
    with open_vault() as vault:
        view = vault.graph(namespace=namespace)
        _unread(view, as_json)
        found = view.edges()
        parts = view.scan(found) if scan else [view.communities(found, resolution=resolution)]
        data = [
            {
                "resolution": p.resolution,
                "modularity": p.modularity,
                "communities": view.describe(p),
            }
            for p in parts
        ]
        if summarize:
            for part in data:
                summarize_communities(
                    view, part["communities"], vault.c.llm, top=vault.settings.graph.summaries
                )

    def render() -> None:
        for part in data:
            console.rule(f"resolution {part['resolution']:g} · modularity {part['modularity']:.3f}")
            for c in part["communities"]:
                console.print(
                    f"#{c['community']} ({c['size']}): {', '.join(c['top'])}"
                    + (f"  [dim]{', '.join(c['predicates'])}[/]" if c["predicates"] else "")
                )
                if "summary" in c:
                    console.print(f"    [bold]{c['title']}[/]: {c['summary']}")
            if not part["communities"]:
                console.print("no communities (too few edges)")

    emit(data if scan else data[0], as_json, render)


@graph_app.command("ppr")
@handle_errors
def ppr(
    seeds: Annotated[list[str], typer.Argument(help="Entity names to start from.")],
    top: Annotated[int, typer.Option(help="How many entities.")] = 10,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Entities most related to the seeds (personalised PageRank over composite edges)."""
    with open_vault() as vault:
        view = vault.graph(namespace=namespace)
        _unread(view, as_json)
        ranked = view.ppr(seeds, top=top)
        data = [{"entity": view.ws.entities[i].name, "score": round(s, 6)} for i, s in ranked]

    def render() -> None:
        for d in data:
            console.print(f"{d['score']:.4f}  {d['entity']}")
        if not data:
            console.print("no entity matches the seeds")

    emit(data, as_json, render)


inbox_app = typer.Typer(
    rich_markup_mode="markdown",
    help="What the dream found surprising: bridges, hidden links, knowledge gaps.",
    invoke_without_command=True,
)


@inbox_app.callback()
@handle_errors
def inbox(
    ctx: typer.Context,
    all_items: Annotated[bool, typer.Option("--all", help="Seen and dismissed too.")] = False,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List unseen discoveries (the default), newest first."""
    if ctx.invoked_subcommand is None:
        _show(all_items, namespace, as_json)


@inbox_app.command("list")
@handle_errors
def inbox_list(
    all_items: Annotated[bool, typer.Option("--all", help="Seen and dismissed too.")] = False,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List discoveries (unseen unless --all), newest first."""
    _show(all_items, namespace, as_json)


def _show(all_items: bool, namespace: str | None, as_json: bool) -> None:
    with open_vault() as vault:
        items = vault.inbox(namespace=namespace, status=None if all_items else "unseen")

    def render() -> None:
        for item in items:
            console.print(
                f"[bold]{item['id']}[/] [{item['status']}] {item['kind']}: {item['text']} "
                f"[dim](score {item['score']:.3f})[/]"
            )
        if not items:
            console.print("the inbox is empty")

    emit(items, as_json, render)


def _mark(
    ids: list[str], status: Literal["seen", "dismissed"], namespace: str | None, as_json: bool
) -> None:
    with open_vault() as vault:
        n = vault.mark_inbox(ids, status, namespace=namespace)
    emit({"marked": n, "status": status}, as_json, lambda: console.print(f"{n} marked {status}"))


@inbox_app.command("seen")
@handle_errors
def inbox_seen(
    ids: Annotated[list[str], typer.Argument(help="Inbox item ids.")],
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Mark items seen (they leave the default list, and are kept)."""
    _mark(ids, "seen", namespace, as_json)


@inbox_app.command("dismiss")
@handle_errors
def inbox_dismiss(
    ids: Annotated[list[str], typer.Argument(help="Inbox item ids.")],
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Dismiss items: not interesting; a later dream does not raise them again."""
    _mark(ids, "dismissed", namespace, as_json)
