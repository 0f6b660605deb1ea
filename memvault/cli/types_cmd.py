"""``memvault types``: a namespace's own entity types (memvault.kg.vocabulary)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from memvault.cli.output import JsonOpt, NamespaceOpt, console, emit, handle_errors, open_vault

types_app = typer.Typer(
    rich_markup_mode="markdown",
    help="Entity types: the built-in ones and the namespace's own (a model is shown their "
    "descriptions; offline, a name after one of a type's cues takes it: 'my dog Pepper').",
    no_args_is_help=True,
)


@types_app.command("list")
@handle_errors
def list_types(namespace: NamespaceOpt = None, as_json: JsonOpt = False) -> None:
    """The built-in entity types, then the namespace's own."""
    with open_vault() as vault:
        found = vault.entity_types(namespace=namespace)
    data = [t.model_dump() for t in found]

    def render() -> None:
        table = Table("type", "description", "cues", "")
        for t in found:
            table.add_row(
                t.name, escape(t.description), escape(", ".join(t.cues)), "built-in" * t.built_in
            )
        console.print(table)

    emit(data, as_json, render)


@types_app.command("add")
@handle_errors
def add(
    name: Annotated[str, typer.Argument(help="lower-case: letters, digits, _ (e.g. pet).")],
    description: Annotated[str, typer.Argument(help="What it is, for a model to read.")],
    cue: Annotated[
        list[str] | None,
        typer.Option("--cue", help="A word a name of this type follows ('dog'); repeatable."),
    ] = None,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Define (or redefine) an entity type of the namespace's own. Entities already written
    keep their type; new writes use it."""
    with open_vault() as vault:
        defined = vault.define_entity_type(name, description, cues=cue or [], namespace=namespace)
    emit(
        defined.model_dump(),
        as_json,
        lambda: console.print(f"defined {defined.name}: {escape(defined.description)}"),
    )


@types_app.command("remove")
@handle_errors
def remove(
    name: Annotated[str, typer.Argument(help="One of the namespace's own types.")],
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Stop giving a type of the namespace's own; entities that have it keep it."""
    with open_vault() as vault:
        removed = vault.remove_entity_type(name, namespace=namespace)
    emit(removed.model_dump(), as_json, lambda: console.print(f"removed {removed.name}"))
