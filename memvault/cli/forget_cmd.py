"""``memvault forget`` and ``memvault correct``: erase memories for good, or correct one.

A forget previews by default (what goes, what stays); ``--apply`` erases. It cannot be
undone, and undo of an earlier dream run does not bring the memory back."""

from __future__ import annotations

import getpass
from typing import Annotated

import typer
from rich.markup import escape

from memvault.capabilities.forget import ForgetPlan
from memvault.cli.output import (
    JsonOpt,
    NamespaceOpt,
    console,
    emit,
    full_ids,
    handle_errors,
    open_vault,
)
from memvault.errors import InvalidInputError


def _who() -> str:
    try:
        return f"cli ({getpass.getuser()})"
    except (KeyError, OSError):  # no user name for this uid (a container)
        return "cli"


def _show(plan: ForgetPlan) -> None:
    verb = "erased" if plan.applied else "would erase"
    console.print(
        f"{verb}: {len(plan.episode_ids)} memories, {len(plan.fact_ids)} facts, "
        f"{len(plan.entity_ids)} entities; {len(plan.facts_kept)} facts kept "
        "(other memories support them)"
    )
    for item in plan.preview:
        console.print(f"  {item['kind']:<7} {item['id']}  {escape(item['text'])}")
    if not plan.applied:
        console.print("[dim]nothing changed: run again with --apply to erase (for good)[/]")


@handle_errors
def forget(
    ids: Annotated[
        list[str] | None, typer.Argument(help="Episode ids to erase (or --subject NAME).")
    ] = None,
    subject: Annotated[
        str | None,
        typer.Option(help="Erase everything about one person (a data subject) instead."),
    ] = None,
    apply: Annotated[
        bool, typer.Option("--apply", help="Erase for good (without it: a preview).")
    ] = False,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Erase memories and everything derived only from them (facts, entities, vectors,
    index rows, digests); what other memories also support stays. Previews unless --apply;
    cannot be undone, and sticks: an ingest, import or hook replaying the same history does
    not write them back (their ids and hashes are kept, never their text)."""
    if bool(ids) == bool(subject):
        raise InvalidInputError(
            "give episode ids or --subject NAME (one of the two)",
            field="ids",
            hint="memvault forget EPISODE_ID, or memvault forget --subject 'Ana Silva'",
        )
    with open_vault() as vault:
        if subject:
            plan = vault.forget_subject(subject, namespace=namespace, dry_run=not apply, by=_who())
        else:
            wanted = full_ids(vault, namespace, ids or [])
            plan = vault.forget(wanted, namespace=namespace, dry_run=not apply, by=_who())
    emit(plan.to_dict(), as_json, lambda: _show(plan))


@handle_errors
def correct(
    episode_id: Annotated[str, typer.Argument(help="The episode that is wrong.")],
    text: Annotated[str, typer.Argument(help="What it should say.")],
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Correct a memory ("that's wrong, it was Tuesday"): the corrected version is written,
    the old one retired (kept in the history, marked as corrected) with the facts derived
    only from it."""
    with open_vault() as vault:
        (whole,) = full_ids(vault, namespace, [episode_id])
        done = vault.correct(whole, text, namespace=namespace, by=_who())
    data = {"old_id": done.old_id, "new_id": done.new_id, "facts_retired": done.facts_retired}
    emit(
        data,
        as_json,
        lambda: console.print(
            f"corrected {done.old_id} → {done.new_id}; "
            f"{len(done.facts_retired)} facts retired with it"
        ),
    )
