"""``memvault plans``: plan hygiene for a folder of markdown plan files (archive what is done,
move stale stubs to .trash/, restore; a dry run first)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from memvault.cli.output import (
    JsonOpt,
    console,
    emit,
    handle_errors,
)


def plans(
    directory: Annotated[Path, typer.Argument(help="The folder of markdown plan files.")],
    apply: Annotated[
        bool, typer.Option("--apply", help="Archive and trash as listed (default: a dry run).")
    ] = False,
    restore: Annotated[
        str | None, typer.Option(help="Move a trashed or archived plan back.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Plan hygiene: classify plan files (active, completed, stale, dormant, recent) and, with
    --apply, archive completed plans and move stale stubs to .trash/ (never deleted, never an
    active plan). The dry run lists exactly what --apply does."""
    from datetime import UTC, datetime

    from memvault.bootstrap import load_settings
    from memvault.interop import plans as hygiene

    settings = load_settings().plans
    if restore:
        names = hygiene.restore(directory, restore)
        emit({"restored": names}, as_json, lambda: console.print(f"restored {', '.join(names)}"))
        return
    now = datetime.now(UTC)
    found = (
        hygiene.apply(directory, now, settings) if apply else hygiene.scan(directory, now, settings)
    )
    data = {"dir": str(directory), "applied": apply, **hygiene.report(found)}

    def render() -> None:
        table = Table("file", "class", "action", "reason")
        for p in found:
            table.add_row(
                p.name,
                p.cls,
                p.action if apply or p.action == "none" else f"would {p.action}",
                p.reason,
            )
        console.print(table)
        if not apply:
            console.print("dry run: nothing moved (add --apply)")

    emit(data, as_json, render)


def register(app: typer.Typer) -> None:
    app.command()(handle_errors(plans))
