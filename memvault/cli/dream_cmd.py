"""``memvault dream``: plan, apply, report, undo, resume (``memvault review``: review_cmd)."""

from __future__ import annotations

import time
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table

from memvault.cli.output import (
    JsonOpt,
    NamespaceOpt,
    console,
    emit,
    err_console,
    handle_errors,
    interactive,
    open_vault,
    parse_time,
)

dream_app = typer.Typer(
    rich_markup_mode="markdown",
    help="The dream: resolve contradictions, merge duplicates, decay, prune (dry run unless "
    "--apply).",
    invoke_without_command=True,
)


@dream_app.callback()
@handle_errors
def dream(
    ctx: typer.Context,
    apply: Annotated[
        bool, typer.Option("--apply", help="Make the changes (default: preview).")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Dream even if the gate is closed.")
    ] = False,
    all_namespaces: Annotated[bool, typer.Option("--all", help="Every namespace.")] = False,
    now: Annotated[str | None, typer.Option(help="Pretend it is this time (ISO date).")] = None,
    show: Annotated[int, typer.Option(help="Changes listed per namespace.")] = 30,
    skip_files: Annotated[
        bool, typer.Option("--skip-files", help="Do not read the synced memory directories.")
    ] = False,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Plan one dream per namespace and show it; --apply makes the auto-approved changes and
    queues the rest for review."""
    if ctx.invoked_subcommand is not None:
        return
    started = time.perf_counter()
    with (
        open_vault() as vault,
        Progress(console=err_console, disable=as_json or not interactive(), transient=True) as bar,
    ):
        names = vault.namespaces() if all_namespaces else [vault.ns(namespace)]
        task = bar.add_task("dreaming", total=len(names))
        results, seconds = [], []
        for n in names:
            bar.update(task, description=f"dreaming {n}")
            t = time.perf_counter()
            results.append(
                vault.dream(
                    namespace=n,
                    apply=apply,
                    force=force,
                    now=parse_time(now, "--now"),
                    skip_files=skip_files,
                    on_chunk=lambda c, n=n: bar.update(
                        task, description=f"{n}: {c} chunks applied"
                    ),
                )
            )
            seconds.append(round(time.perf_counter() - t, 2))
            bar.advance(task)
        # --all looks across namespaces too: duplicates are reported, never merged
        across = vault.cross_namespace_duplicates(namespaces=names) if all_namespaces else None
    took = time.perf_counter() - started
    data = [_result_json(r, show) | {"seconds": s} for r, s in zip(results, seconds, strict=True)]

    def render() -> None:
        for r in results:
            _render(r, show)
        if across is not None:
            _render_across(across, show)
        if len(results) > 1:
            console.print(f"{len(results)} namespaces in {took:.1f} s", highlight=False)

    emit(
        {"runs": data, "cross_namespace_duplicates": across} if across else data[0], as_json, render
    )


def _render_across(across: dict[str, Any], show: int) -> None:
    console.rule("[bold]across namespaces[/] · reported, never merged")
    if not across["pairs"]:
        console.print(f"no duplicates across {across['namespaces']} namespaces")
        return
    table = Table("cosine", "namespace", "memory", "namespace", "memory")
    for p in across["pairs"][: max(show, 0)]:
        a, b = p["a"], p["b"]
        table.add_row(
            "same words" if p["same_words"] else f"{p['cosine']:.3f}",
            a["namespace"],
            escape(a["text"][:80]),
            b["namespace"],
            escape(b["text"][:80]),
        )
    console.print(table)
    more = len(across["pairs"]) - max(show, 0) + across["more"]
    if more > 0:
        console.print(f"[dim]{more} more (--json lists them)[/dim]")


def _result_json(r: Any, show: int) -> dict[str, Any]:
    out: dict[str, Any] = {"namespace": r.namespace, "status": r.status, "run_id": r.run_id}
    if r.status == "skipped":
        out["gate"] = r.gate.reasons
        return out
    out["report"] = r.report
    out["changes"] = [
        {
            "op": c.op,
            "kind": c.kind,
            "id": c.target_id,
            "action": c.action,
            "change": c.summary(),
            "confidence": round(c.confidence, 3),
            "impact": c.impact,
            "reasons": [x.why for x in c.reasons],
        }
        for c in r.plan.changes[: max(show, 0)]
    ]
    out["review_ids"] = r.review_ids
    if r.applied:
        out["applied"] = r.applied.applied
        out["skipped"] = r.applied.skipped
    return out


def _render(r: Any, show: int) -> None:
    if r.status == "skipped":
        console.print(f"[{r.namespace}] no dream: " + "; ".join(r.gate.reasons) + " (use --force)")
        return
    rep = r.report
    head = "applied" if r.status == "applied" else "dry run: nothing changed"
    console.rule(f"[bold]{r.namespace}[/] · run {r.run_id} · {head}")
    counts = Table("op", "changes", title="what the dream proposes")
    for op, n in rep["counts"].items():
        counts.add_row(op, str(n))
    console.print(counts if rep["counts"] else "nothing to change")
    console.print(
        f"{rep['auto_approved']} auto-approved, {rep['to_review']} for review"
        + (f"; applied {r.applied.applied}, skipped {len(r.applied.skipped)}" if r.applied else "")
    )
    if r.plan.changes and show > 0:
        table = Table("op", "record", "change", "conf", "why")
        for c in r.plan.changes[:show]:
            table.add_row(
                c.op,
                f"{c.kind} {c.target_id[:10]}",
                escape(c.summary()),
                f"{c.confidence:.2f}",
                escape("; ".join(x.why for x in c.reasons)),
            )
        console.print(table)
        if len(r.plan.changes) > show:
            console.print(f"... and {len(r.plan.changes) - show} more (--show N, or --json)")
    reflect = rep["stages"]["reflect"]
    for line in reflect["insights"]:
        console.print(f"[cyan]insight[/] {escape(line)}")
    for line in reflect["gaps"]:
        console.print(f"[yellow]gap[/] {escape(line)}")
    if r.status == "planned" and rep["changes"]:
        console.print("run again with --apply to make these changes")


@dream_app.command("report")
@handle_errors
def report(
    run_id: Annotated[str, typer.Argument(help="A run id (see `memvault dream runs`).")],
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """What a dream run found and did."""
    with open_vault() as vault:
        data = vault.dream_report(run_id, namespace=namespace)

    def render() -> None:
        console.print(f"run {run_id}: {data['status']}, {data.get('applied', 0)} changes applied")
        for op, n in data["counts"].items():
            console.print(f"  {op}: {n}")
        for stage, seconds in data["timings_s"].items():
            console.print(f"  [dim]{stage} {seconds:.3f}s[/]")

    emit(data, as_json, render)


@dream_app.command("runs")
@handle_errors
def runs(namespace: NamespaceOpt = None, as_json: JsonOpt = False) -> None:
    """Recent dream runs, newest first."""
    with open_vault() as vault:
        data = vault.dream_runs(namespace=namespace)

    def render() -> None:
        table = Table("run", "status", "at", "changes", "applied", "review")
        for d in data:
            table.add_row(
                *(str(d[k]) for k in ("run_id", "status", "at", "changes", "applied", "to_review"))
            )
        console.print(table if data else "no dream runs yet")

    emit(data, as_json, render)


@dream_app.command("undo")
@handle_errors
def undo(
    run_id: Annotated[str, typer.Argument(help="The run to undo.")],
    force: Annotated[bool, typer.Option(help="Restore even records changed since.")] = False,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Restore every record a run changed, exactly as it was (also a run a killed process
    left half applied: what it committed is restored, and it is not resumed)."""
    with open_vault() as vault:
        was = vault.dream_report(run_id, namespace=namespace)["status"]
        n = vault.undo_dream(run_id, namespace=namespace, force=force)
    partly = (
        " (the run was only partly applied; it will not be resumed)" if was == "applying" else ""
    )
    emit(
        {"run_id": run_id, "restored": n, "was": was},
        as_json,
        lambda: console.print(f"restored {n} records{partly}"),
    )


@dream_app.command("resume")
@handle_errors
def resume(namespace: NamespaceOpt = None, as_json: JsonOpt = False) -> None:
    """Finish applying the runs a killed process left half applied (`dream --apply` does it
    too before it plans a new run)."""
    with open_vault() as vault:
        done = vault.resume_dreams(namespace=namespace)
    emit(
        {"resumed_runs": done},
        as_json,
        lambda: console.print(
            f"resumed {', '.join(done)}" if done else "no half-applied runs to resume"
        ),
    )
