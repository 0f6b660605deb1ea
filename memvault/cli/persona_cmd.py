"""``memvault persona``: the attitude and skill layers (docs/persona.md)."""

from __future__ import annotations

from typing import Annotated, Any

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

persona_app = typer.Typer(
    rich_markup_mode="markdown",
    help="The person behind the memories: attitudes (versioned preferences) and skills.",
    no_args_is_help=True,
)
AsOfOpt = Annotated[
    str | None, typer.Option("--as-of", help="As things stood then (ISO date or time).")
]
CategoryOpt = Annotated[
    str | None, typer.Option("--category", "-c", help="One category, e.g. writing_style.")
]


def _attitude_table(rows: list[dict[str, Any]], with_status: bool) -> None:
    if not rows:
        console.print("no attitudes")
        return
    cols = ["category", "statement", "confidence", "since", "version"]
    table = Table(*(["status"] if with_status else []), *cols)
    for a in rows:
        cells = [
            a["category"],
            escape(a["statement"]),
            f"{a['confidence_now']:.2f}",
            a["first_seen"][:10],
            str(a["version"]),
        ]
        table.add_row(*([a["status"]] if with_status else []), *cells)
    console.print(table)


def _attitudes(
    namespace: str | None, category: str | None, as_of: str | None, history: bool, as_json: bool
) -> None:
    with open_vault() as vault:
        rows = vault.attitudes(
            namespace=namespace,
            category=category,
            as_of=parse_time(as_of, "--as-of"),
            history=history,
        )
    emit(rows, as_json, lambda: _attitude_table(rows, history))


@persona_app.command("attitudes")
@handle_errors
def attitudes(
    namespace: NamespaceOpt = None,
    category: CategoryOpt = None,
    as_of: AsOfOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Current attitudes: not superseded, confidence (decayed) at or above the floor."""
    _attitudes(namespace, category, as_of, False, as_json)


@persona_app.command("history")
@handle_errors
def history(
    namespace: NamespaceOpt = None,
    category: CategoryOpt = None,
    as_of: AsOfOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every version of every attitude, with its status: current, faded or superseded."""
    _attitudes(namespace, category, as_of, True, as_json)


@persona_app.command("skills")
@handle_errors
def skills(
    namespace: NamespaceOpt = None,
    min_level: Annotated[
        str | None, typer.Option("--min-level", help="L1 (exposure), L2 (competent) or L3.")
    ] = None,
    as_of: AsOfOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Skills with their level and why (the uses that got it there, and how they faded)."""
    with open_vault() as vault:
        rows = vault.skills(
            namespace=namespace, min_level=min_level, as_of=parse_time(as_of, "--as-of")
        )

    def render() -> None:
        if not rows:
            console.print("no skills")
            return
        table = Table("skill", "level", "points", "why")
        for s in rows:
            table.add_row(escape(s["name"]), s["level"], f"{s['xp']:.1f}", escape(s["why"]))
        console.print(table)

    emit(rows, as_json, render)


@persona_app.command("skill-use")
@handle_errors
def skill_use(
    name: Annotated[str, typer.Argument(help="The skill, e.g. Rust.")],
    evidence: Annotated[
        str | None, typer.Option("--evidence", help="The episode id it shows in.")
    ] = None,
    kind: Annotated[str, typer.Option(help="read | do | teach | build")] = "do",
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Record one use of a skill: reading about it < doing it < teaching or building with it."""
    with open_vault() as vault:
        row = vault.record_skill_use(name, kind=kind, evidence=evidence, namespace=namespace)
    emit(row, as_json, lambda: console.print(f"{row['name']}: {row['level']} ({row['why']})"))


@persona_app.command("set")
@handle_errors
def set_attitude(
    category: Annotated[str, typer.Argument(help="e.g. writing_style, tech_choice.")],
    statement: Annotated[str, typer.Argument(help="The preference, in the person's words.")],
    context: Annotated[str | None, typer.Option(help="Where it holds, e.g. 'in chat'.")] = None,
    avoid: Annotated[bool, typer.Option("--avoid", help="A dislike (polarity -1).")] = False,
    evidence: Annotated[
        str | None, typer.Option("--evidence", help="The episode id it comes from.")
    ] = None,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Upsert an attitude: a restatement corroborates, a change starts a new version."""
    with open_vault() as vault:
        row = vault.upsert_attitude(
            category,
            statement,
            context=context,
            polarity=-1 if avoid else 1,
            evidence=evidence,
            namespace=namespace,
        )
    emit(row, as_json, lambda: console.print(f"{row['action']}: {row['attitude']['statement']}"))
