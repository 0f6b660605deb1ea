"""``memvault demo``: the main job end to end on data this project wrote itself."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memvault.cli.output import handle_errors


def demo(
    db: Annotated[
        Path | None,
        typer.Option(help="Vault file for the demo (default: .memvault/demo.db, recreated)."),
    ] = None,
) -> None:
    """Write a short made-up history, recall from it, and show why each memory ranked."""
    from memvault.demo import run_demo

    run_demo(db or Path(".memvault/demo.db"))


def register(app: typer.Typer) -> None:
    app.command()(handle_errors(demo))
