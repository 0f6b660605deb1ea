"""``memvault fold`` and ``memvault primer``: one digest per memory type, and the block an
agent loads at session start."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from memvault.cli.output import JsonOpt, NamespaceOpt, console, emit, handle_errors, open_vault
from memvault.language.tokens import tokenizer


def fold(
    namespace: NamespaceOpt = None,
    apply: Annotated[
        bool, typer.Option("--apply", help="Fold (the default is a dry run: what would be read).")
    ] = False,
    rebuild: Annotated[
        bool,
        typer.Option("--rebuild", help="Start every digest over from all episodes (with --apply)."),
    ] = False,
    undo: Annotated[
        bool,
        typer.Option(
            "--undo", help="Undo each type's last fold run (a preview; with --apply, restore)."
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Fold new episodes into each memory type's digest, rewritten in place within a hard
    budget (fold.budget_tokens). A second run with nothing new reads nothing. --undo gives
    back each digest as it was before its last run."""
    if undo:
        with open_vault() as vault:
            undone = vault.undo_fold(namespace=namespace, apply=apply)

        def show() -> None:
            for t, v in undone.items():
                console.print(
                    f"{t}: {v['episodes_now']} → {v['episodes_restored']} episodes covered"
                )
            if not undone:
                console.print("nothing to undo")
            elif not apply:
                console.print("preview: nothing restored (add --apply)")

        emit({"applied": apply, "types": undone}, as_json, show)
        return
    with open_vault() as vault:
        report = vault.fold(namespace=namespace, apply=apply, rebuild=rebuild)
        economics = vault.fold_economics(namespace=namespace)
    data = {
        "namespace": report.namespace,
        "applied": report.applied,
        "types": report.per_type,
        "projects": economics,
    }

    def render() -> None:
        table = Table("cell (type@project)", "new episodes", "batches folded", "model calls")
        for t, v in report.per_type.items():
            table.add_row(t, str(v["new"]), str(v["batches"]), str(v["calls"]))
        console.print(table)
        if not apply:
            console.print("dry run: nothing folded (add --apply)")
        if economics:
            money = Table(
                "project", "observations", "raw tokens", "digest tokens", "ratio",
                title=f"token economics ({tokenizer().name})",
            )  # fmt: skip
            for row in economics:
                money.add_row(
                    row["project"] or "(namespace)",
                    str(row["observations"]),
                    str(row["raw_tokens"]),
                    str(row["digest_tokens"]),
                    f"{row['ratio']}x",
                )
            console.print(money)

    emit(data, as_json, render)


def primer(
    namespace: NamespaceOpt = None,
    budget: Annotated[
        int | None,
        typer.Option(help="Hard budget in tokens (o200k_base; default: fold.primer_tokens)."),
    ] = None,
    project: Annotated[
        str | None, typer.Option(help="That project's digests first (folds per project).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """The block an agent loads at session start: each type's digest and what waits for a
    human, within the budget, with raw-history tokens against primer tokens."""
    with open_vault() as vault:
        block = vault.primer(namespace=namespace, budget_tokens=budget, project=project)
    data = block.to_dict()

    def render() -> None:
        typer.echo(block.text or "(empty: nothing folded yet)")
        if block.episodes_covered == 0:
            console.print("[dim]no digest yet: `memvault fold --apply` folds what was written[/]")
        console.print(
            f"\n[dim]{block.tokens} of {block.budget_tokens} tokens ({tokenizer().name})"
            f"{', clipped' if block.clipped else ''}; covers {block.episodes_covered} episodes"
            f" ({block.raw_tokens} tokens), ratio {block.ratio}x[/dim]"
        )

    emit(data, as_json, render)


def register(app: typer.Typer) -> None:
    app.command()(handle_errors(fold))
    app.command()(handle_errors(primer))
