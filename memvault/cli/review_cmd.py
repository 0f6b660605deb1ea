"""``memvault review``: the review queue, its policy, and deciding items one by one or in
bulk."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Column, Table

from memvault.cli.output import (
    JsonOpt,
    NamespaceOpt,
    console,
    emit,
    handle_errors,
    open_vault,
)
from memvault.errors import InvalidInputError

review_app = typer.Typer(
    rich_markup_mode="markdown", help="The review queue: changes the dream would not make alone."
)


@review_app.command("list")
@handle_errors
def review_list(
    status: Annotated[
        str, typer.Option(help="pending | approved | rejected | stale | withdrawn | all")
    ] = "pending",
    reason: Annotated[
        str | None,
        typer.Option(
            help="Only items queued for this reason: low_confidence | high_impact | "
            "large_batch | sensitive | proposed"
        ),
    ] = None,
    oldest: Annotated[bool, typer.Option("--oldest", help="Oldest first.")] = False,
    limit: Annotated[int, typer.Option(min=1, max=10_000, help="Items a page.")] = 50,
    offset: Annotated[int, typer.Option(min=0, help="Skip this many first.")] = 0,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Review items, newest first, a page at a time (--limit, --offset). Items past their due
    date are re-queued first (a new due date, a line in their history): never dropped, never
    applied on their own."""
    with open_vault() as vault:
        vault.requeue_overdue(namespace=namespace)
        items = vault.review_items(
            namespace=namespace,
            status=None if status == "all" else status,
            reason=reason,
            oldest_first=oldest,
            limit=offset + limit,
        )[offset:]

    def render() -> None:
        if not items:
            console.print(f"no {status} review items")
            return
        table = Table(
            Column("id", no_wrap=True),  # whole: it is what approve and reject take
            "status",
            "why",
            "due",
            "proposed change",
            show_lines=True,
        )
        for item in items:
            lines = [
                f"{c['kind']} {c['target_id'][:10]}: " + "; ".join(x["why"] for x in c["reasons"])
                for c in item["changes"]
            ]
            due = (item.get("due_at") or "")[:10]
            table.add_row(item["id"], item["status"], item["reason"], due, escape("\n".join(lines)))
        console.print(table)

    emit(items, as_json, render)


@review_app.command("policy")
@handle_errors
def review_policy(
    reset: Annotated[
        bool, typer.Option("--reset", help="Every op back to the default threshold.")
    ] = False,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """How the queue governs itself: each op's auto-approve threshold (moved by the
    decisions made on it), the counts behind it, and every move."""
    with open_vault() as vault:
        moved = vault.reset_review_policy(namespace=namespace) if reset else None
        data = vault.review_policy(namespace=namespace)
    if moved is not None:
        data["reset"] = moved

    def render() -> None:
        if moved is not None:
            console.print(f"reset: {moved} threshold(s) back to {data['default_threshold']:g}")
        table = Table("op", "threshold", "approved", "rejected", "approvals in a row")
        ops = sorted(set(data["thresholds"]) | set(data["decisions"]))
        for op in ops:
            counts = data["decisions"].get(op, {})
            table.add_row(
                op,
                f"{data['thresholds'].get(op, data['default_threshold']):.2f}",
                str(sum(c["approved"] for c in counts.values())),
                str(sum(c["rejected"] for c in counts.values())),
                str(data["approvals_in_a_row"].get(op, 0)),
            )
        console.print(
            table if ops else f"no decisions yet (threshold {data['default_threshold']:g})"
        )
        for op, counts in sorted(data.get("recall_verdicts", {}).items()):
            said = ", ".join(f"{k} {n}" for k, n in counts.items() if n)
            console.print(f"recall verdicts on what {op} changed: {said}", highlight=False)
        for change in data["changes"][:10]:
            console.print(
                f"{change['at'][:10]}  {change['op']}: {change['from']:.2f} → {change['to']:.2f} "
                f"({change['why']})",
                highlight=False,
            )

    emit(data, as_json, render)


@review_app.command("approve")
@handle_errors
def review_approve(
    review_id: Annotated[str, typer.Argument(help="A review item id.")],
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Make the proposed change (journaled with its run: `dream undo` reverts it too)."""
    with open_vault() as vault:
        review_id = _whole(vault, namespace, review_id)
        n = vault.approve(review_id, namespace=namespace)
    emit(
        {"id": review_id, "applied": n},
        as_json,
        lambda: console.print(f"approved: {n} records changed"),
    )


@review_app.command("decide")
@handle_errors
def review_decide(
    decision: Annotated[str, typer.Argument(help="approve | reject")],
    reason: Annotated[
        str | None, typer.Option(help="Only items queued for this reason code.")
    ] = None,
    op: Annotated[str | None, typer.Option(help="Only items with a change of this op.")] = None,
    run: Annotated[str | None, typer.Option(help="Only items this dream run proposed.")] = None,
    every: Annotated[
        bool, typer.Option("--all", help="Every pending item (when no filter is given).")
    ] = False,
    note: Annotated[str, typer.Option(help="Kept with each rejection.")] = "",
    apply: Annotated[bool, typer.Option("--apply", help="Decide (default: preview).")] = False,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Approve or reject in bulk the pending items matching every filter given; a preview
    of what matches unless --apply. A stale item is reported and the others still go."""
    with open_vault() as vault:
        out = vault.decide_reviews(
            decision,
            namespace=namespace,
            reason=reason,
            op=op,
            run_id=run,
            every=every,
            dry_run=not apply,
            note=note,
        )

    def render() -> None:
        ids = ", ".join(m["id"] for m in out["matched"][:20]) or "none"
        if out["dry_run"]:
            console.print(
                f"would {decision} {len(out['matched'])} item(s): {ids} (--apply to decide)",
                highlight=False,
            )
            return
        done = {"approve": "approved", "reject": "rejected"}[decision]
        console.print(f"{done} {len(out['decided'])} item(s)", highlight=False)
        for failed in out["failed"]:
            console.print(f"not decided {failed['id']}: {failed['error']}", highlight=False)

    emit(out, as_json, render)
    if out["failed"]:
        raise typer.Exit(1)


@review_app.command("reject")
@handle_errors
def review_reject(
    review_id: Annotated[str, typer.Argument(help="A review item id.")],
    note: Annotated[str, typer.Option(help="Why (kept with the item).")] = "",
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Leave things as they are; the item is kept as rejected."""
    with open_vault() as vault:
        review_id = _whole(vault, namespace, review_id)
        vault.reject(review_id, namespace=namespace, note=note)
    emit({"id": review_id, "status": "rejected"}, as_json, lambda: console.print("rejected"))


def _whole(vault: Any, namespace: str | None, given: str) -> str:
    """A pending item's id from its first characters ("rv_b2c63", as the demo and narrow
    tables print them), when they start exactly one; else the id as given."""
    wanted = given.strip()
    pending = [i["id"] for i in vault.review_items(namespace=namespace, limit=10_000)]
    if wanted in pending or len(wanted) < 5:
        return wanted
    starting = [i for i in pending if i.startswith(wanted)]
    if len(starting) > 1:
        raise InvalidInputError(
            f"{wanted!r} starts more than one pending item ({starting[0]}, {starting[1]})",
            field="review_id",
            hint="give more of it (memvault review list shows ids whole)",
        )
    return starting[0] if starting else wanted
