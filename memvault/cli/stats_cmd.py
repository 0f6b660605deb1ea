"""``memvault stats``: counts of what a namespace holds (one narrow table per namespace);
``memvault compact``: the file given back the room that deleted rows left."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from memvault.cli.output import JsonOpt, NamespaceOpt, console, emit, handle_errors, open_vault


def stats(
    namespace: NamespaceOpt = None,
    all_namespaces: Annotated[bool, typer.Option("--all", help="Every namespace.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Counts of what a namespace holds."""
    with open_vault() as vault:
        names = vault.namespaces() if all_namespaces else [vault.ns(namespace)]
        rows = [vault.stats(namespace=n) for n in names]

    def render() -> None:
        if not rows:
            console.print("the vault is empty")
            return
        for r in rows:  # one narrow table per namespace: it reads in any terminal
            table = Table("", str(r["namespace"]), show_header=True)
            for key, value in r.items():
                if key == "janitor" and isinstance(value, dict):
                    table.add_row(key, _janitor(value))
                elif key != "namespace":
                    table.add_row(_LABELS.get(key, key), _cell(value))
            console.print(table)
        console.print(
            "[dim]facts no longer true are as-of history; retired ones were corrected, "
            "forgotten or decayed away; `memvault facts` lists those true now[/]"
        )

    emit(rows if all_namespaces else rows[0], as_json, render)


# what a count holds, where its key alone misleads (`memvault facts` lists fewer: those
# valid now); --json keeps the keys
_LABELS = {
    "episodes": "episodes (merged, corrected included)",
    "facts": "facts (no longer true ones included)",
    "facts_all": "facts (retired ones too)",
}


def _cell(v: object) -> str:
    """A table cell: a dict as 'key value' pairs (a list as its length), else the value."""
    if isinstance(v, dict):
        return ", ".join(f"{k} {len(n) if isinstance(n, list) else n}" for k, n in v.items())
    return "-" if v is None else str(v)


def _janitor(snap: dict[str, object]) -> str:
    """The janitor's snapshot in words: its keys are seed 002's ("lastCulledEpisodeIds" are the
    episodes handed to the tiers, not erased), shown as they are only under --json."""

    def n(key: str) -> int:
        value = snap.get(key)
        return len(value) if isinstance(value, list) else 0

    return (
        f"last run {str(snap.get('lastRunAt', '?'))[:16].replace('T', ' ')} "
        f"({snap.get('lastRunId', '?')}): {n('lastCulledFactIds')} decayed facts retired, "
        f"{n('lastCulledEpisodeIds')} episodes past the TTL handed to the tiers (kept), "
        f"{n('lastMarkedStaleEpisodeIds')} marked stale; {snap.get('totalRuns', 0)} run(s), "
        f"schedule {snap.get('schedule', '?')}"
    )


def compact(as_json: JsonOpt = False) -> None:
    """Give the vault file back the room deleted and rewritten memories left (digests'
    old texts, released journals, erased memories): the keyword indexes merged, the
    write-ahead log folded in, VACUUM. Nothing stored changes; other writers wait while
    it runs. A vault on a graph server keeps its own files: nothing to do."""
    with open_vault() as vault:
        done = vault.store.compact()

    def render() -> None:
        if not done.get("compacted"):
            console.print(f"nothing to compact: {done.get('why', 'not a file')}")
            return
        before, after = int(done["bytes_before"]), int(done["bytes_after"])
        console.print(f"{_size(before)} → {_size(after)} ({_size(before - after)} given back)")

    emit(done, as_json, render)


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if abs(n) >= 1e6 else f"{n / 1e3:.0f} kB"


def register(app: typer.Typer) -> None:
    app.command()(handle_errors(stats))
    app.command()(handle_errors(compact))
