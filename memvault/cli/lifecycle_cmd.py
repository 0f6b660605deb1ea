"""``memvault tiers`` (episodes per type, tier and level, and what the tier stage moves now)
and ``memvault janitor`` (the hygiene janitor on demand)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from memvault.cli.output import JsonOpt, NamespaceOpt, console, emit, handle_errors, open_vault


def tiers(
    namespace: NamespaceOpt = None,
    apply: Annotated[
        bool,
        typer.Option(
            "--apply", help="Move them (the default is a dry run: what the next run would move)."
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Episodes per type, tier (hot / warm / cold / frozen) and level (full text, digest,
    headline), and what the tier stage would move now. Moving to cold or frozen replaces the
    text for good (docs/tiers.md); `memvault dream undo RUN_ID` restores it only while the
    journal keeps it (dream.tiers.journal_retention_days)."""
    with open_vault() as vault:
        data = vault.tiers(namespace=namespace, apply=apply)

    def render() -> None:
        table = Table("type", "tier", "level", "episodes", "characters")
        for c in data["counts"]:
            table.add_row(c["type"], c["tier"], c["level"], str(c["episodes"]), str(c["chars"]))
        console.print(table if data["counts"] else "no episodes")
        nxt = data["next"]
        if not nxt.get("enabled", True):
            console.print("tiers are off (dream.tiers.enabled)")
            return
        moves = ", ".join(f"{k} {n}" for k, n in nxt["moves"].items()) or "nothing to move"
        verb = "moved" if data["status"] == "applied" else "would move"
        console.print(
            f"{verb}: {moves}; digests {nxt['digests']}, headlines {nxt['headlines']}, "
            f"{nxt['chars_dropped']} characters dropped; kept whole: "
            + (", ".join(f"{k} {n}" for k, n in nxt["protected"].items()) or "none")
        )
        if data["status"] == "applied":
            console.print(f"run {data['run_id']} (undo: memvault dream undo {data['run_id']})")
        else:
            console.print("dry run: nothing moved (add --apply)")

    emit(data, as_json, render)


def janitor(
    namespace: NamespaceOpt = None,
    apply: Annotated[
        bool, typer.Option("--apply", help="Apply (the default is a dry run: what it would do).")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """The hygiene janitor now, whatever dream.hygiene.schedule says: cull facts whose
    confidence decayed away, hand episodic turns past the TTL to the tiers, mark long-silent
    permanent memories stale; then prune and tiers. With --apply it is a run of its own
    (undo: memvault dream undo RUN_ID) and the janitor's snapshot is written."""
    with open_vault() as vault:
        data = vault.janitor(namespace=namespace, apply=apply)

    def render() -> None:
        j = data["janitor"]
        if not j.get("enabled", True):
            console.print("the janitor is off (dream.hygiene.enabled)")
            return
        verb = "" if data["status"] == "applied" else "would have "
        console.print(
            f"{verb}culled {len(j['culled'])} facts, handed {len(j['cold'])} turns past the TTL "
            f"to the tiers, marked {len(j['marked_stale'])} permanent memories stale; "
            f"{data['changes']} changes ({data['to_review']} to review)"
        )
        snap = data["snapshot"]
        if snap:
            console.print(
                f"snapshot: run {snap['totalRuns']} at {snap['lastRunAt']} "
                f"(after {snap['lastRunTurn']} episodes)"
            )
        if data["status"] != "applied":
            console.print("dry run: nothing changed (add --apply)")

    emit(data, as_json, render)


def register(app: typer.Typer) -> None:
    app.command()(handle_errors(tiers))
    app.command()(handle_errors(janitor))
