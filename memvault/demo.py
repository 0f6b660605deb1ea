"""The demo: a made-up history of one user, written by this project (no external data).

Maya talks to her assistant across six sessions over a year: she moves from Berlin to
Lisbon, changes managers, states preferences, and repeats herself. The demo writes it,
recalls from it now and "as of" the past with each score explained, then dreams: a dry run
first, then apply (the move and the new manager supersede the old facts, the repeated
preference merges), the inbox: what the dream was unsure of, waiting for a human, and what
it noticed; and last how Maya likes things done (the persona layer read from her words).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from memvault.clock import FixedClock

NAMESPACE = "maya"

SESSIONS: list[tuple[str, list[str]]] = [
    (
        "2025-01-10T09:00:00",
        [
            "Hi! I'm Maya. I live in Berlin and I work at Helio Labs as a data engineer.",
            "My manager is Tobias Klein. He is great at unblocking people.",
            "I prefer short answers with code examples.",
        ],
    ),
    (
        "2025-03-02T18:30:00",
        [
            "I love trail running; I did the Grunewald loop this weekend.",
            "My sister Lena visits from Hamburg next month.",
            "Remind me that the Q2 pipeline migration is due in May.",
        ],
    ),
    (
        "2025-06-15T11:00:00",
        [
            "Big news: I moved to Lisbon last week! The light here is unreal.",
            "I still work at Helio Labs, remotely now.",
            "I prefer short answers with code examples.",
        ],
    ),
    (
        "2025-09-20T08:15:00",
        [
            "My manager is Ana Duarte since the reorg in September.",
            "On the platform guild my manager is Rui Santos, though.",
            "I really enjoy surfing in Ericeira on weekends.",
            "The pipeline migration finally shipped.",
        ],
    ),
    (
        "2025-11-05T20:00:00",
        [
            "I'm training for the Lisbon half marathon in March.",
            "Lena is coming to Lisbon for New Year's.",
        ],
    ),
    (
        "2025-12-01T10:00:00",
        [
            "Can you recommend a running route near Belém?",
            "I prefer dark mode in every tool.",
        ],
    ),
]

QUERIES = [
    "Where does Maya live?",
    "Who is Maya's manager?",
    "What sports does Maya do?",
]


def demo_items() -> list[tuple[datetime, list[dict[str, Any]]]]:
    out = []
    for index, (when, lines) in enumerate(SESSIONS, start=1):
        at = datetime.fromisoformat(when).replace(tzinfo=UTC)
        out.append(
            (
                at,
                [
                    {
                        "content": text,
                        "speaker": "Maya",
                        "session_id": f"s{index}",
                        "occurred_at": at,
                    }
                    for text in lines
                ],
            )
        )
    return out


def run_demo(path: Path, console: Console | None = None) -> dict[str, Any]:
    from memvault.vault import MemVault

    console = console or Console()
    if path.exists():
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    clock = FixedClock(datetime(2026, 1, 1, tzinfo=UTC))
    summary: dict[str, Any] = {"database": str(path)}
    with MemVault.open(path, clock=clock) as vault:
        console.rule("[bold]1. write[/]: six sessions of Maya's year")
        for at, items in demo_items():
            result = vault.write_many(items, namespace=NAMESPACE, now=at)
            console.print(
                f"{at.date()}  wrote {result.created} memories, "
                f"{result.duplicates} exact duplicates skipped, "
                f"{result.facts_created} new facts, "
                f"{result.facts_reinforced} reinforced"
            )
        summary["stats"] = vault.stats(namespace=NAMESPACE)
        console.print(f"embedder: {vault.c.embedder.name}; llm: {vault.c.llm.name}")
        console.print(summary["stats"])

        console.rule("[bold]2. recall[/] (now = 2026-01-01)")
        for query in QUERIES:
            _recall(console, vault, query, query)
        summary["top"] = {q: vault.recall(q, namespace=NAMESPACE, k=1)[0].text for q in QUERIES}

        console.rule("[bold]3. facts[/]: what the vault believes, and what it believed")
        _facts(console, vault, "now", None)
        _facts(console, vault, "as of 2025-02-01", datetime(2025, 2, 1, tzinfo=UTC))
        console.print(
            "[yellow]Both cities and three managers are still valid: the older values are only "
            "contested (recall prefers the newer) until the dream judges them.[/]"
        )
        summary |= _dream(console, vault)
        console.rule("[bold]7. persona[/]: how Maya likes things done (versions kept)")
        rows = vault.attitudes(namespace=NAMESPACE, history=True)
        summary["attitudes"] = {a["statement"]: a["status"] for a in rows}
        for a in rows:
            last = a["last_corroborated"][:10]
            console.print(
                f"{a['status']:>8}  {a['category']}: {escape(a['statement'])} "
                f"(said {len(a['evidence'])}×, last {last}; confidence now "
                f"{a['confidence_now']:.2f})"
            )
        console.print(
            "[yellow]Not said since June, the answer-length preference has faded below "
            "the floor: kept, no longer current.[/]"
        )
    # the demo's own clock, so that each command shows what the demo showed
    day = clock.now().date().isoformat()
    console.print(
        f"\nvault file: {path}\n  try: memvault --db {path} recall 'running' -n maya --now {day}"
        f"\n       memvault --db {path} persona attitudes -n maya --as-of {day}"
        f"\n       memvault --db {path} review list -n maya --status all"
        f"\n       memvault --db {path} dream report {summary['run_id']} -n maya"
        f"\n       memvault --db {path} dream undo {summary['run_id']} -n maya"
        f"\n       memvault --db {path} lint -n maya",
        soft_wrap=True,  # one command a line, whatever the terminal's width: copy and paste
    )
    return summary


def _dream(console: Console, vault: Any) -> dict[str, Any]:
    console.rule("[bold]4. dream, dry run[/]: what would change, and why (nothing written)")
    preview = vault.dream(namespace=NAMESPACE)
    _changes(console, preview)

    console.rule("[bold]5. dream --apply[/]")
    done = vault.dream(namespace=NAMESPACE, apply=True)
    console.print(
        f"run {done.run_id}: {done.applied.applied} changes applied, "
        f"{done.report['to_review']} sent to review"
    )
    _facts(console, vault, "now, after the dream", None)
    _facts(console, vault, "as of 2025-02-01 (history is kept)", datetime(2025, 2, 1, tzinfo=UTC))
    hits = _recall(console, vault, QUERIES[0], f"{QUERIES[0]} (after the dream)")
    berlin = next((h for h in hits if "Berlin" in h.text), None)
    if berlin is not None and berlin.explanation.factors.currency_note:
        console.print(
            f"[yellow]the Berlin turn ranks #{hits.index(berlin) + 1}[/], kept for history: "
            f"{escape(berlin.explanation.factors.currency_note)}"
        )

    console.rule("[bold]6. inbox[/]: what the dream was unsure of, and what it noticed")
    items = vault.review_items(namespace=NAMESPACE)
    for item in items:
        for change in item["changes"]:
            why = "; ".join(r["why"] for r in change["reasons"])
            console.print(f"[magenta]review {item['id'][:8]}[/] ({item['reason']}): {escape(why)}")
    reflection = done.report["stages"]["reflect"]
    for line in reflection["insights"]:
        console.print(f"[cyan]insight[/] {escape(line)}")
    for line in reflection["gaps"]:
        console.print(f"[yellow]gap[/] {escape(line)}")
    if items:
        vault.reject(items[0]["id"], namespace=NAMESPACE, note="two managers, two teams")
        console.print(
            f"a human rejects review {items[0]['id'][:8]}: both managers stay current "
            "(memvault review reject ID --note ...)"
        )
    return {
        "top_after_dream": hits[0].text,
        "run_id": done.run_id,
        "dream_counts": done.report["counts"],
        "review_items": len(items),
        "lives_in_now": [f.object for f in vault.facts(namespace=NAMESPACE, predicate="lives_in")],
    }


def _recall(console: Console, vault: Any, query: str, title: str, k: int = 3) -> list[Any]:
    hits: list[Any] = vault.recall(query, namespace=NAMESPACE, k=50)
    table = Table(title=title, show_lines=True)
    table.add_column("score")
    table.add_column("memory")
    for hit in hits[:k]:
        why = escape(hit.explanation.text())
        table.add_row(f"{hit.score:.3f}", f"({hit.kind}) {escape(hit.text)}\n[dim]{why}[/]")
    console.print(table)
    return hits


def _changes(console: Console, result: Any) -> None:
    table = Table("op", "change", "confidence", "why", show_lines=True)
    shown = [c for c in result.plan.changes if c.op.startswith("consolidate")]
    for c in shown:
        table.add_row(
            c.op.split(".", 1)[1],
            escape(c.summary()),
            f"{c.confidence:.2f}",
            escape("; ".join(r.why for r in c.reasons)),
        )
    console.print(table)
    rest = {op: n for op, n in result.report["counts"].items() if not op.startswith("consolidate")}
    if rest:
        console.print("also: " + ", ".join(f"{op} ×{n}" for op, n in rest.items()))


def _facts(console: Console, vault: Any, label: str, as_of: datetime | None) -> None:
    table = Table(title=f"facts {label}")
    for column in ("subject", "predicate", "object", "valid from"):
        table.add_column(column)
    disputed = vault.contested(namespace=NAMESPACE, as_of=as_of)
    for f in vault.facts(namespace=NAMESPACE, as_of=as_of):
        newer = disputed.get(f.id)
        note = f" [yellow](contested by {escape(newer.object)})[/]" if newer else ""
        table.add_row(
            f.subject, f.predicate, escape(f.object) + note, f.valid_at.date().isoformat()
        )
    console.print(table)
