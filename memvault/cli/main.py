"""memvault's command line: ``memvault --help``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from memvault.cli.output import (
    GLOBALS,
    JsonOpt,
    NamespaceOpt,
    RulesOnlyOpt,
    console,
    emit,
    err_console,
    full_ids,
    handle_errors,
    open_vault,
    parse_time,
    print_skipped_derivations,
)

app = typer.Typer(
    rich_markup_mode="markdown",
    name="memvault",
    help="Long-term memory for AI agents: write, recall, dream. Embedded by default "
    "(one SQLite file, no servers).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _globals(
    db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            envvar="MEMVAULT_DB_PATH",
            help="The vault file (default: ~/.memvault/memvault.db); before or after the command.",
        ),
    ] = None,
) -> None:
    GLOBALS.db = db


@app.command()
@handle_errors
def init(as_json: JsonOpt = False) -> None:
    """Create the vault file (or upgrade its schema) and show where it is."""
    with open_vault(create=True) as vault:
        info = {
            "database": str(vault.settings.database),
            "embedder": vault.c.embedder.name,
            "llm": vault.c.llm.name,
            "namespaces": vault.namespaces(),
        }
    emit(
        info,
        as_json,
        lambda: console.print(
            f"vault ready at [bold]{info['database']}[/] (embedder: {info['embedder']}, "
            f"llm: {info['llm']})"
        ),
    )


@app.command()
@handle_errors
def write(
    text: Annotated[str, typer.Argument(help="The memory's text, or - to read it from stdin.")],
    memory_type: Annotated[
        str, typer.Option("--type", help="user | feedback | project | reference | episodic")
    ] = "episodic",
    speaker: Annotated[str | None, typer.Option(help="Who said it.")] = None,
    session: Annotated[str | None, typer.Option(help="The session (conversation) id.")] = None,
    at: Annotated[
        str | None, typer.Option("--at", help="When it happened (ISO date; default: now).")
    ] = None,
    importance: Annotated[float, typer.Option(help="0..1; how much it matters.")] = 0.5,
    print_id: Annotated[
        bool, typer.Option("--id", help="Print only the episode's id (for scripts).")
    ] = False,
    rules_only: RulesOnlyOpt = False,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write one memory (the SDK's write): entities and facts are extracted on the way in."""
    import sys

    from memvault.ingest.normalize import decode

    content = decode(sys.stdin.buffer.read(), field="stdin") if text == "-" else text
    item = {"content": content, "type": memory_type, "importance": importance}
    item |= {k: v for k, v in (("speaker", speaker), ("session_id", session)) if v is not None}
    if at is not None:
        item["occurred_at"] = parse_time(at, "--at")
    with open_vault(create=True) as vault:
        ns = vault.ns(namespace)
        result = vault.write_many(
            [item], namespace=ns, labels=["text"], rules_only=rules_only or None
        )
        episode = vault.get_episode(result.episode_ids[0], namespace=ns)
    data = {
        "namespace": ns,
        "id": episode.id,
        "created": bool(result.created),
        "duplicate_of": episode.id if result.duplicates else None,
        "truncated": bool(result.truncated),
        "facts_created": result.facts_created,
        "facts_reinforced": result.facts_reinforced,
        "entities_created": result.entities_created,
        "derivations_skipped": result.skipped,
        "episode": episode.model_dump(mode="json"),
    }

    def render() -> None:
        what = "already known as" if result.duplicates else "wrote"
        console.print(
            f"{escape(f'[{ns}]')} {what} {episode.id} ({result.facts_created} new facts, "
            f"{result.entities_created} new entities)",
            highlight=False,
        )
        if result.truncated:
            console.print(
                f"[yellow]truncated[/] to {vault.settings.max_content_chars} characters "
                "(max_content_chars); the cut is marked in the text"
            )
        print_skipped_derivations(result.skipped)

    if print_id and not as_json:
        print(episode.id)
        return
    emit(data, as_json, render)


SHOWN = 600  # characters of a memory the recall table shows (a long reply fills screens)


def _shown(text: str) -> str:
    if len(text) <= SHOWN:
        return text
    cut = text.rfind(" ", SHOWN - 100, SHOWN)
    cut = cut if cut > 0 else SHOWN
    return f"{text[:cut]} … (+{len(text) - cut:,} characters: --full)"


@app.command()
@handle_errors
def recall(
    query: Annotated[str, typer.Argument(help="What to remember.")],
    k: Annotated[int, typer.Option("-k", "--k", help="How many memories.")] = 10,
    namespace: NamespaceOpt = None,
    as_of: Annotated[str | None, typer.Option(help="World time to ask about (ISO date).")] = None,
    now: Annotated[str | None, typer.Option(help="Pretend it is this time (ISO date).")] = None,
    explain: Annotated[bool, typer.Option(help="Show how each score was made.")] = False,
    persona: Annotated[
        bool, typer.Option("--persona", help="Add the current attitudes the query touches.")
    ] = False,
    ids: Annotated[
        bool, typer.Option("--ids", help="Print only the ids, one a line (for pipes).")
    ] = False,
    session: Annotated[
        str | None,
        typer.Option("--session", help="The session asking: its prefetch cache first."),
    ] = None,
    full: Annotated[
        bool,
        typer.Option(
            "--full", help=f"Show each memory whole (the table shows {SHOWN} characters)."
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Recall the memories that matter most for a query."""
    with open_vault() as vault:
        hits = vault.recall(
            query,
            namespace=namespace,
            k=k,
            now=parse_time(now, "--now"),
            as_of=parse_time(as_of, "--as-of"),
            persona=persona,
            session_id=session,
        )
    data = [
        {
            "kind": h.kind,
            "id": h.id,
            "score": round(h.score, 6),
            "text": h.text,
            **({"tier": h.tier.value} if h.tier else {}),
            **({"digest": h.digest} if h.digest else {}),
            **(
                {"explanation": h.explanation.model_dump(mode="json"), "why": h.explanation.text()}
                if explain or as_json
                else {}
            ),
            **({"recall_id": hits.recall_id} if hits.recall_id else {}),
            **({"hint": hits.hint} if hits.hint else {}),
            **({"vectors_pending": hits.vectors_pending} if hits.vectors_pending else {}),
        }
        for h in hits
    ]

    if ids and not as_json:
        for h in hits:
            typer.echo(h.id)
        return

    def render() -> None:
        if not hits:
            console.print("no memories match")
        else:
            table = Table("#", "score", "kind", "memory", "id", show_lines=explain)
            for i, h in enumerate(hits, start=1):
                why = f"\n[dim]{escape(h.explanation.text())}[/]" if explain else ""
                text = escape(h.text if full else _shown(h.text)) + why
                if h.digest:  # what one-way compression left, never the original
                    text = f"[dim]({h.tier} · {h.digest})[/] {text}"
                table.add_row(str(i), f"{h.score:.4f}", h.kind, text, h.id[:12])
            console.print(table)
        if hits.hint:
            console.print(f"[yellow]{escape(hits.hint)}[/]")
        if hits.vectors_pending:
            console.print(
                f"[yellow]{hits.vectors_pending} memories wait for their meaning vectors[/]: "
                "found by their words only until `memvault catch-up` (or a server) embeds them"
            )
        if hits.recall_id:
            console.print(  # one line however narrow the terminal: it is copied whole
                f"[dim]say how it went: memvault verdict {hits.recall_id} "
                "correct|incorrect|ambiguous[/]",
                soft_wrap=True,
            )

    emit(data, as_json, render)


@app.command()
@handle_errors
def reinforce(
    ids: Annotated[list[str], typer.Argument(help="Ids of episodes or facts.")],
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Mark memories as confirmed useful: they resist decay and stickiness."""
    with open_vault() as vault:
        n = vault.reinforce(full_ids(vault, namespace, ids), namespace=namespace)
    emit({"reinforced": n}, as_json, lambda: console.print(f"reinforced {n} memories"))


@app.command()
@handle_errors
def feedback(
    record_id: Annotated[str, typer.Argument(help="An episode or fact id.")],
    signal: Annotated[str, typer.Argument(help="up | down | correct | incorrect")],
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Tell the vault a memory was good, bad, right or wrong."""
    with open_vault() as vault:
        (whole,) = full_ids(vault, namespace, [record_id])
        record = vault.feedback(whole, signal, namespace=namespace)
    emit(
        record.model_dump(mode="json"),
        as_json,
        lambda: console.print(f"recorded {signal} on {record_id}"),
    )


@app.command()
@handle_errors
def facts(
    subject: Annotated[str | None, typer.Option(help="Only facts about this entity.")] = None,
    predicate: Annotated[str | None, typer.Option(help="Only this predicate.")] = None,
    as_of: Annotated[str | None, typer.Option(help="Facts valid at this date.")] = None,
    history: Annotated[bool, typer.Option(help="Include superseded and retired facts.")] = False,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List facts (by default those valid now)."""
    with open_vault() as vault:
        found = vault.facts(
            namespace=namespace,
            subject=subject,
            predicate=predicate,
            as_of=parse_time(as_of, "--as-of"),
            include_history=history,
        )
        disputed = vault.contested(namespace=namespace, as_of=parse_time(as_of, "--as-of"))

    def render() -> None:
        table = Table("subject", "predicate", "object", "valid", "conf", "id")
        for f in found:
            until = f.invalid_at.date().isoformat() if f.invalid_at else "now"
            retired = " (retired)" if f.expired_at else ""
            newer = disputed.get(f.id)
            said = newer.object if newer and newer.predicate == f.predicate else None
            said = said or (newer.statement if newer else "")
            note = f"\n[yellow]contested by {escape(said)} (provisional)[/]" if newer else ""
            table.add_row(
                f.subject,
                f.predicate,
                f.object,
                f"{f.valid_at.date().isoformat()} → {until}{retired}{note}",
                f"{f.confidence:.2f}",
                f.id[:12],
            )
        console.print(table if found else "no facts")

    emit(
        [
            {**f.model_dump(mode="json"), "contested_by": getattr(disputed.get(f.id), "id", None)}
            for f in found
        ],
        as_json,
        render,
    )


# Commands with more moving parts live in their own modules.
from memvault.cli import (  # noqa: E402
    data_cmds,
    demo_cmd,
    dream_cmd,
    eval_cmd,
    fold_cmd,
    forget_cmd,
    graph_cmd,
    hook_cmd,
    lifecycle_cmd,
    lint_cmd,
    mcp_cmd,
    persona_cmd,
    plans_cmd,
    profile_cmd,
    review_cmd,
    serve_cmd,
    stats_cmd,
    types_cmd,
    vectors_cmd,
)

data_cmds.register(app)
plans_cmd.register(app)
vectors_cmd.register(app)
stats_cmd.register(app)
demo_cmd.register(app)
fold_cmd.register(app)
serve_cmd.register(app)
mcp_cmd.register(app)
lifecycle_cmd.register(app)
profile_cmd.register(app)
app.add_typer(eval_cmd.app, name="eval")
app.add_typer(hook_cmd.hook_app, name="hook")
app.add_typer(dream_cmd.dream_app, name="dream")
app.add_typer(review_cmd.review_app, name="review")
app.add_typer(graph_cmd.graph_app, name="graph")
app.add_typer(graph_cmd.inbox_app, name="inbox")
app.add_typer(persona_cmd.persona_app, name="persona")
app.add_typer(types_cmd.types_app, name="types")
app.command("lint")(lint_cmd.lint)
app.command("forget")(forget_cmd.forget)
app.command("correct")(forget_cmd.correct)


GLOBAL_OPTIONS = ("--db",)  # the options of ``_globals``: each takes one value


def hoist_globals(args: list[str], keep: frozenset[str] = frozenset({"demo"})) -> list[str]:
    """Global options moved before the subcommand, wherever they were typed:
    ``memvault init --db FILE`` reads as ``memvault --db FILE init`` (git and docker users
    type them after). Nothing after ``--`` moves, nor anything after a command in ``keep``,
    whose own ``--db`` means something else (``demo --db``: the demo's file, recreated)."""
    front: list[str] = []
    rest: list[str] = []
    command: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--" or command in keep:
            rest.extend(args[i:])
            break
        if arg.split("=", 1)[0] in GLOBAL_OPTIONS:
            take = 1 if "=" in arg else 2
            front.extend(args[i : i + take])
            i += take
            continue
        if command is None and not arg.startswith("-"):
            command = arg
        rest.append(arg)
        i += 1
    return front + rest


def main() -> None:
    args = sys.argv[1:]
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg in GLOBAL_OPTIONS and (i + 1 == len(args) or args[i + 1].startswith("-")):
            err_console.print(f"[red]{arg} needs a value[/]: {arg} FILE (the vault file)")
            raise SystemExit(2)
    app(args=hoist_globals(args))
