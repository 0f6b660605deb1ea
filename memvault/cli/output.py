"""Shared CLI plumbing: the vault from global options, JSON or rich output, and the one
place errors become messages and exit codes (2: bad input, configuration or an unusable
file, 1: anything else)."""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from memvault.clock import RANGE_TEXT, DateRangeError
from memvault.errors import (
    ConfigError,
    InvalidBatchError,
    InvalidInputError,
    MemvaultError,
    NotFoundError,
    UnusableStoreError,
)
from memvault.interop.jsonl import parse_session_time

F = TypeVar("F", bound=Callable[..., Any])

console = Console()
err_console = Console(stderr=True)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
NamespaceOpt = Annotated[
    str | None, typer.Option("--namespace", "-n", help="Namespace (default: settings).")
]
RulesOnlyOpt = Annotated[
    bool,
    typer.Option(
        "--rules-only",
        help="Extract entities and facts with the offline rules even when a model is "
        "configured (no model call).",
    ),
]


@dataclass
class Globals:
    db: Path | None = None


GLOBALS = Globals()


def open_vault(*, create: bool = False, **overrides: Any) -> Any:
    """The vault of ``--db`` (or the settings). Only commands that write (``create=True``:
    init, write, ingest, import, serve, mcp) create a missing SQLite file; the others say
    there is no vault there instead of leaving an empty one behind."""
    from memvault.bootstrap import load_settings
    from memvault.vault import MemVault

    settings = overrides.pop("settings", None) or load_settings()
    path = GLOBALS.db or settings.database
    if not create and settings.store == "sqlite" and not Path(path).exists():
        raise ConfigError(f"no vault at {path}; run `memvault init` (or check --db)")
    return MemVault.open(GLOBALS.db, settings=settings, **overrides)


def parse_time(value: str | None, option: str) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_session_time(value)
    except DateRangeError as exc:
        raise DateRangeError(exc.value, option, RANGE_TEXT) from None
    except ValueError:
        raise InvalidInputError(
            f"{value!r} is not a date",
            field=option,
            hint="use ISO 8601, e.g. 2024-05-01 or 2024-05-01T13:56:00",
        ) from None


_SHORT_ID = re.compile(r"[0-9a-f]{6,31}")


def full_ids(vault: Any, namespace: str | None, ids: list[str]) -> list[str]:
    """Ids as given, a short one (the first characters tables show) made whole when it starts
    exactly one episode's or fact's id; one that starts several is refused, naming two."""
    ns = vault.ns(namespace)
    out = []
    for given in ids:
        wanted = given.strip()
        if _SHORT_ID.fullmatch(wanted):
            found = vault.store.ids_starting_with(ns, wanted, limit=2)
            if len(found) > 1:
                raise InvalidInputError(
                    f"{wanted!r} starts more than one id ({found[0]}, {found[1]})",
                    field="id",
                    hint="give more of it (--json shows ids whole)",
                )
            wanted = found[0] if found else wanted
        out.append(wanted)
    return out


def emit(data: Any, as_json: bool, render: Callable[[], None] | None = None) -> None:
    if as_json or render is None:
        typer.echo(json.dumps(data, indent=2, default=str, ensure_ascii=False))
    else:
        render()


def _error_payload(exc: MemvaultError) -> dict[str, Any]:
    body: dict[str, Any] = {"type": type(exc).__name__, "message": str(exc)}
    if isinstance(exc, InvalidInputError) and exc.field:
        body["field"] = exc.field
    if isinstance(exc, InvalidBatchError):
        body["problems"] = [{"where": p.where, "message": p.message} for p in exc.problems]
    if isinstance(exc, NotFoundError):
        body["id"] = exc.id
    return body


def handle_errors(fn: F) -> F:
    """Run a command; a MemvaultError becomes a message on stderr (JSON with --json) and a
    non-zero exit instead of a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except MemvaultError as exc:
            if kwargs.get("as_json"):
                typer.echo(json.dumps({"error": _error_payload(exc)}, indent=2), err=True)
            else:
                err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
                if isinstance(exc, InvalidBatchError) and len(exc.problems) > 5:
                    for p in exc.problems:
                        err_console.print(f"  {p.where}: {p.message}", highlight=False)
            bad_input = isinstance(exc, InvalidInputError | ConfigError | UnusableStoreError)
            raise typer.Exit(2 if bad_input else 1) from None

    return wrapper  # type: ignore[return-value]


def interactive() -> bool:
    return sys.stderr.isatty()


def print_skipped_derivations(skipped: dict[str, int]) -> None:
    """What the write path could not derive from the text it stored, and why (the memories
    themselves were written)."""
    for reason, n in sorted(skipped.items()):
        err_console.print(
            f"[yellow]not derived[/] from {n} memor{'y' if n == 1 else 'ies'}: {reason} "
            "(the memory is stored)",
            highlight=False,
        )
