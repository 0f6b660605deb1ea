"""``memvault lint``: the four-level knowledge lint."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from memvault.cli.output import JsonOpt, NamespaceOpt, console, emit, handle_errors, open_vault

_STYLE = {"error": "red", "warning": "yellow", "info": "dim"}


@handle_errors
def lint(
    level: Annotated[
        list[str] | None,
        typer.Option(
            "--level",
            "-l",
            help="structure, grounding, claims or llm; repeat for several (default: all).",
        ),
    ] = None,
    ontology: Annotated[
        list[Path] | None,
        typer.Option(help="An ontology file extending the shipped one; repeatable."),
    ] = None,
    propose: Annotated[
        bool,
        typer.Option(
            help="Check each fix again and send it to the review queue (never applied here)."
        ),
    ] = False,
    strict: Annotated[bool, typer.Option(help="Exit 1 when any error-level finding.")] = False,
    limit: Annotated[int, typer.Option(help="Findings shown (the counts cover all).")] = 50,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Check the knowledge graph: structure (orphans, loops, malformed facts), grounding
    (the ontology's types and flags), llm (semantic contradictions; offline: a labelled rule).
    With --propose, fixes pass a three-stage check into `memvault review`."""
    with open_vault() as vault:
        report = vault.lint(
            namespace=namespace, levels=level, ontology=ontology or [], propose=propose
        )
    data = report.json(limit)

    def render() -> None:
        for f in data["findings"]:
            style = _STYLE[f["severity"]]
            fix = f"  [dim]fix: {f['fix'][0]['summary']}[/]" if f["fix"] else ""
            console.print(
                f"[{style}]{f['severity']:7}[/] {f['level']}.{f['code']}: "
                f"{escape(f['message'])}{fix}"
            )
        shown = f" ({data['shown']} shown)" if data["shown"] < data["total"] else ""
        console.print(f"{data['total']} finding(s){shown}: {data['counts'] or 'none'}")
        if data["volatile_predicates"]:
            console.print(f"volatile predicates: {', '.join(data['volatile_predicates'])}")
        p = data["proposals"]
        if p:
            console.print(
                f"fixes: {p['marked']} marked, {p['confirmed']} confirmed on a fresh read, "
                f"{p['submitted']} sent to review ({p['already_queued']} already queued)"
            )
            for d in p["dropped"]:
                console.print(f"  [dim]dropped {d['finding']}: {d['why']}[/]")
        elif any(f["fix"] for f in data["findings"]):
            console.print("[dim]--propose sends the fixes to `memvault review`[/]")

    emit(data, as_json, render)
    if strict and data["by_severity"].get("error"):
        raise typer.Exit(1)
