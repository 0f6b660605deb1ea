"""Commands about meaning vectors: catch up what deferred writes owe, and recompute them all
with the configured embedder (reembed)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from memvault.cli.output import (
    JsonOpt,
    NamespaceOpt,
    console,
    emit,
    err_console,
    handle_errors,
    interactive,
    open_vault,
)


def wait_for_vectors(vault: Any, ns: str, progress: bool) -> dict[str, Any]:
    """Catch up the namespace here (or wait for whoever is), with a progress bar and its ETA
    on a terminal; the report as JSON."""
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err_console, disable=not progress, transient=True) as bar:
        task = bar.add_task("embedding", total=None)
        report = vault.wait_for_vectors(
            namespace=ns, on_progress=lambda n, total: bar.update(task, completed=n, total=total)
        )
    return report.as_dict()


def brought(report: dict[str, Any]) -> str:
    """What a catch-up embedded beside the memories: the facts and names their writes made."""
    parts = [
        f"{n} {what}"
        for n, what in ((report.get("facts", 0), "facts"), (report.get("entities", 0), "names"))
        if n
    ]
    return f" (and the {' and '.join(parts)} they brought)" if parts else ""


def catch_up(namespace: NamespaceOpt = None, as_json: JsonOpt = False) -> None:
    """Embed the memories that wait for their meaning vectors (written by a deferred write:
    `ingest`, imports, or the `defer_vectors` setting). Until then they are found by their
    words and the graph. Safe to interrupt: what was committed stays, and the next run embeds
    exactly what is left; when another process is catching up, this one waits for it."""
    with open_vault() as vault:
        ns = vault.ns(namespace)
        data = wait_for_vectors(vault, ns, not as_json and interactive())

    def render() -> None:
        console.print(
            escape(f"[{ns}]")
            + f" {data['embedded']} memories got their vectors"
            + brought(data)
            + f" in {data['seconds']} s"
            + (f" ({data['episodes_per_s']}/s)" if data["episodes_per_s"] else "")
            + (f"; {data['left']} still wait" if data["left"] else "; none wait"),
            highlight=False,
        )

    emit(data, as_json, render)


def reembed(
    apply: Annotated[
        bool, typer.Option("--apply", help="Recompute them (default: a dry run that counts).")
    ] = False,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Recompute a namespace's vectors with the configured embedder: once after upgrading a
    vault written before vectors left out the speaker's (or subject's) name, or after
    switching to another embedder of the same dimension. Vectors are derived: no memory
    changes, a second run gives the same vectors; an interrupted run is finished by running
    it again, which recomputes only what the first left."""
    with (
        open_vault() as vault,
        Progress(console=err_console, disable=not interactive(), transient=True) as bar,
    ):
        task = bar.add_task("embedding", total=None)
        done = vault.reembed(
            namespace=namespace,
            apply=apply,
            on_progress=lambda n, total: bar.update(task, completed=n, total=total),
        )
    data = {
        "namespace": done.namespace,
        "embedder": done.embedder,
        "applied": done.applied,
        "counts": done.counts,
        "resumed": done.resumed,
        "seconds": done.seconds,
    }

    def render() -> None:
        names = {"episode": "episodes", "fact": "facts", "entity": "entities", "chunk": "chunks"}
        what = ", ".join(f"{n} {k if n == 1 else names[k]}" for k, n in sorted(done.counts.items()))
        left = f"{done.resumed} records left by an interrupted run"
        if apply:
            console.print(
                f"re-embedded {what} with {done.embedder} in {done.seconds} s"
                + (f" (finishing {left})" if done.resumed else "")
            )
        else:
            console.print(
                f"would re-embed {what} with {done.embedder} (add --apply)"
                + (f"; {left} would be finished first" if done.resumed else "")
            )

    emit(data, as_json, render)


def register(app: typer.Typer) -> None:
    app.command(name="catch-up")(handle_errors(catch_up))
    app.command()(handle_errors(reembed))
