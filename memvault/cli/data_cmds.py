"""Commands that move memories in and out: ingest, export, import (dumps, MEMORY.md directories,
claude-mem), and plan hygiene."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.progress import Progress

from memvault.cli.ingest_input import parse_input, read_input
from memvault.cli.output import (
    JsonOpt,
    NamespaceOpt,
    RulesOnlyOpt,
    console,
    emit,
    err_console,
    handle_errors,
    interactive,
    open_vault,
    print_skipped_derivations,
)
from memvault.cli.vectors_cmd import brought, wait_for_vectors
from memvault.errors import ConfigError, InvalidBatchError, InvalidInputError
from memvault.ingest.normalize import decode
from memvault.interop.chat_import import drop_invalid, line_order
from memvault.interop.jsonl import ParsedLines


def ingest(
    file: Annotated[
        str,
        typer.Argument(
            help="A .jsonl or text file, a ChatGPT or Claude export (its conversations.json or "
            ".zip), or - for stdin."
        ),
    ],
    fmt: Annotated[
        str, typer.Option("--format", help="auto | jsonl | text | chatgpt | claude")
    ] = "auto",
    split: Annotated[
        str, typer.Option(help="Text files: paragraphs | lines | none")
    ] = "paragraphs",
    memory_type: Annotated[str | None, typer.Option("--type", help="Default memory type.")] = None,
    session: Annotated[str | None, typer.Option(help="Default session id.")] = None,
    speaker: Annotated[
        str | None,
        typer.Option(help="Default speaker (a chat export: the name of your own messages)."),
    ] = None,
    skip_invalid: Annotated[
        bool,
        typer.Option(
            help="Write the valid records and report the invalid ones (default: write nothing "
            "if any record is invalid)."
        ),
    ] = False,
    allow_empty: Annotated[
        bool, typer.Option(help="Exit 0 when the input holds nothing to write.")
    ] = False,
    wait: Annotated[
        bool,
        typer.Option(
            help="Wait until every memory has its meaning vectors (a progress bar with its "
            "ETA). --no-wait: return once written; they are found by their words at once "
            "and by meaning after `memvault catch-up` (or a server) embeds them."
        ),
    ] = True,
    rules_only: RulesOnlyOpt = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Read and check everything, write nothing: how many memories it would "
            "write, how many are already here, what it leaves out and every problem.",
        ),
    ] = False,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write memories from a JSONL or text file, or a ChatGPT or Claude export (each message
    a memory; importing it again writes nothing twice), in batches of one transaction each.
    Each batch is acknowledged before its meaning vectors are computed (setting
    `defer_vectors`); by default the command then waits for them. `--dry-run` previews."""
    parsed = parse_input(
        read_input(file),
        fmt,
        file,
        split,
        {"type": memory_type, "session_id": session, "speaker": speaker},
    )
    if not (parsed.episodes or parsed.facts or parsed.problems or allow_empty):
        raise InvalidInputError(
            "holds nothing to write (empty or only whitespace)",
            field=file,
            hint="check the file, or pass --allow-empty to accept an empty input",
        )
    if dry_run:
        _preview(parsed, namespace, as_json)
        return
    with open_vault(create=True) as vault:
        ns = vault.ns(namespace)
        # Every problem of the file at once, in line order: the user fixes them in one pass.
        skipped = sorted(parsed.problems + drop_invalid(vault, parsed, ns), key=line_order)
        if skipped and not skip_invalid:
            raise InvalidBatchError(
                skipped,
                what="stdin" if file == "-" else file,
                hint="fix them, or pass --skip-invalid to write the rest and list these",
            )
        started = time.perf_counter()
        totals = _write_batches(vault, parsed, ns, not as_json and interactive(), rules_only)
        if parsed.facts:
            totals["facts_written"] = len(vault.add_facts(parsed.facts, namespace=ns))
        took = time.perf_counter() - started
        totals["written_s"] = round(took, 2)
        totals["written_per_s"] = round(totals["created"] / took, 1) if took else 0.0
        if wait:
            totals["vectors"] = wait_for_vectors(vault, ns, not as_json and interactive())
        totals["vectors_pending"] = vault.vectors_pending(namespace=ns)
        # a bulk load is where a namespace grows past the approximate index's threshold:
        # build it here, not in the first recall
        totals["search"] = vault.store.prepare_search(ns)
    report = {
        "namespace": ns,
        **totals,
        "skipped": [{"where": p.where, "message": p.message} for p in skipped],
        **({"left_out": parsed.left_out} if parsed.left_out else {}),
    }

    def render() -> None:
        facts = totals["facts_created"] + totals.get("facts_written", 0)
        console.print(
            f"{escape(f'[{ns}]')} wrote {totals['created']} memories "
            f"({totals['duplicates']} duplicates, {facts} facts, "
            f"{totals['entities_created']} entities) in {totals['written_s']} s"
        )
        if parsed.left_out:
            console.print(
                "left out as no memory: "
                + ", ".join(f"{n} {why}" for why, n in sorted(parsed.left_out.items())),
                highlight=False,
            )
        if totals["forgotten"]:
            console.print(
                f"[yellow]{totals['forgotten']} memories were forgotten before[/] (memvault "
                "forget): not written again",
                highlight=False,
            )
        if "vectors" in totals and totals["vectors"]["embedded"]:
            v = totals["vectors"]
            console.print(
                f"embedded {v['embedded']} memories"
                + brought(v)
                + f" in {v['seconds']} s ({v['episodes_per_s']}/s)",
                highlight=False,
            )
        if totals["vectors_pending"]:
            console.print(
                f"[yellow]{totals['vectors_pending']} memories wait for their meaning "
                "vectors[/]: found by their words now; `memvault catch-up` embeds them"
            )
        print_skipped_derivations(totals["derivations_skipped"])
        if totals["truncated"]:
            console.print(
                f"[yellow]{totals['truncated']} memories were truncated[/] to "
                f"{vault.settings.max_content_chars} characters (max_content_chars); the cut "
                "is marked in the text",
                highlight=False,
            )
        for p in skipped:
            err_console.print(f"[yellow]skipped[/] {p.where}: {p.message}", highlight=False)

    emit(report, as_json, render)


def _preview(parsed: ParsedLines, namespace: str | None, as_json: bool) -> None:
    """What an ingest would do, nothing written: a vault that does not exist yet is not
    created (the records are checked against an empty one, thrown away)."""
    with tempfile.TemporaryDirectory() as scratch:
        try:
            vault = open_vault()
            here = True
        except ConfigError:  # no vault yet: check against an empty one
            from memvault.bootstrap import load_settings
            from memvault.vault import MemVault

            empty = Path(scratch) / "preview.db"
            vault, here = MemVault.open(empty, settings=load_settings()), False
        with vault:
            ns = vault.ns(namespace)
            problems = sorted(parsed.problems + drop_invalid(vault, parsed, ns), key=line_order)
            ids = [str(e["external_id"]) for e in parsed.episodes if e.get("external_id")]
            known = len(vault.store.episodes_by_external_id(ns, ids)) if here and ids else 0
    report = {
        "dry_run": True,
        "namespace": ns,
        "would_write": len(parsed.episodes) - known,
        "already_here": known,
        "facts": len(parsed.facts),
        "left_out": parsed.left_out,
        "problems": [{"where": p.where, "message": p.message} for p in problems],
    }

    def said() -> None:
        console.print(
            f"{escape(f'[{ns}]')} dry run, nothing written: would write "
            f"{report['would_write']} memories ({known} already here, {len(parsed.facts)} "
            "facts given)",
            highlight=False,
        )
        if parsed.left_out:
            console.print(
                "would leave out as no memory: "
                + ", ".join(f"{n} {why}" for why, n in sorted(parsed.left_out.items())),
                highlight=False,
            )
        for p in problems:
            err_console.print(f"[yellow]problem[/] {p.where}: {p.message}", highlight=False)
        if problems:
            console.print(
                f"{len(problems)} problem(s): the ingest writes nothing until they are fixed, "
                "or writes the rest with --skip-invalid"
            )

    emit(report, as_json, said)


def _write_batches(
    vault: Any, parsed: ParsedLines, ns: str, progress: bool, rules_only: bool = False
) -> dict[str, Any]:
    totals: dict[str, Any] = dict.fromkeys(
        (
            "created",
            "duplicates",
            "forgotten",
            "truncated",
            "facts_created",
            "facts_reinforced",
            "entities_created",
        ),
        0,
    )
    skipped: dict[str, int] = {}
    size = vault.settings.ingest_batch_size
    items, labels = parsed.episodes, parsed.episode_labels
    with Progress(console=err_console, disable=not progress, transient=True) as bar:
        task = bar.add_task("writing", total=len(items))
        for start in range(0, len(items), size):
            result = vault.write_many(
                items[start : start + size],
                namespace=ns,
                labels=labels[start : start + size],
                defer_vectors=vault.settings.defer_vectors != "never",
                rules_only=rules_only or None,
            )
            for key in totals:
                totals[key] += getattr(result, key)
            for reason, n in result.skipped.items():
                skipped[reason] = skipped.get(reason, 0) + n
            bar.advance(task, len(items[start : start + size]))
    totals["derivations_skipped"] = skipped
    return totals


FORMATS = ("memory-dir", "claude-mem")


def export(
    kind: Annotated[
        str | None,
        typer.Argument(help="memory-dir to write a MEMORY.md directory (default: the dump)."),
    ] = None,
    target: Annotated[str | None, typer.Argument(help="memory-dir: the directory.")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="File (default: stdout).")] = None,
    vectors: Annotated[bool, typer.Option(help="Include embeddings.")] = True,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Dump a namespace as JSONL (the logical dump and backup format), or, with
    `memory-dir DIR`, write its typed memories as a MEMORY.md directory."""
    if kind is not None:
        if kind != "memory-dir" or not target:
            raise InvalidInputError(
                f"unknown export {kind!r}", field="kind", hint="memvault export memory-dir DIR"
            )
        with open_vault() as vault:
            done = vault.export_memory_dir(target, namespace=namespace)

        def said() -> None:
            console.print(f"wrote {done['files']} memories to {target}")
            if not done["files"]:
                console.print(
                    "[dim]a MEMORY.md directory holds typed memories (user, feedback, project,"
                    " reference); episodic turns stay in the vault: `memvault export` dumps"
                    " everything[/]"
                )

        emit(done, as_json, said)
        return
    with open_vault() as vault:
        if out is None:
            summary = vault.export(sys.stdout, namespace=namespace, with_vectors=vectors)
            return
        with out.open("w", encoding="utf-8") as fh:
            summary = vault.export(fh, namespace=namespace, with_vectors=vectors)
    emit(
        {"namespace": summary.namespace, "counts": summary.counts, "file": str(out)},
        as_json,
        lambda: console.print(f"exported {summary.counts} to {out}"),
    )


def import_(
    source: Annotated[
        str,
        typer.Argument(
            help="A dump written by `memvault export`, or memory-dir / claude-mem then a path."
        ),
    ],
    path: Annotated[
        str | None, typer.Argument(help="memory-dir: the directory; claude-mem: the .db file.")
    ] = None,
    project: Annotated[
        str | None, typer.Option(help="claude-mem: only this project's observations.")
    ] = None,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Load a dump (every line is checked before anything is written), a MEMORY.md directory
    (`import memory-dir DIR`: all or nothing, every problem listed by path and line) or a
    claude-mem database (`import claude-mem FILE.db`: read-only; a second import adds only
    what is new)."""
    import io

    if source in FORMATS:
        if not path:
            raise InvalidInputError(
                "is missing", field="path", hint=f"memvault import {source} PATH"
            )
        started = time.perf_counter()
        with (
            open_vault(create=True) as vault,
            Progress(
                console=err_console, disable=as_json or not interactive(), transient=True
            ) as bar,
        ):
            task = bar.add_task("reading observations", total=None)
            if source == "memory-dir":
                done = vault.import_memory_dir(path, namespace=namespace)
                msg = (
                    f"imported {done['imported']} of {done['files']} memories "
                    f"({done['unchanged']} unchanged, {len(done['changed_not_updated'])} changed "
                    f"and not updated), {done['links']} links; "
                    f"{len(done['unresolved_links'])} links to memories worth writing, "
                    f"{len(done['relative_dates'])} relative dates to make absolute"
                )
            else:
                done = vault.import_claude_mem(
                    path,
                    namespace=namespace,
                    project=project,
                    on_progress=lambda n: bar.update(task, completed=n),
                )
                took = time.perf_counter() - started
                done["seconds"] = round(took, 2)
                rate = f", {done['read'] / took:.0f}/s" if took and done["read"] else ""
                msg = (
                    f"read {done['read']} observations after #{done['after_id']} in "
                    f"{took:.1f} s{rate}: imported "
                    f"{done['imported']}, {done['duplicates']} already here, "
                    f"{done['forgotten']} forgotten before, "
                    f"{done['skipped_empty']} without text, {done['skipped_bad_time']} without a "
                    f"readable time, {done['skipped_invalid']} refused"
                    + "".join(f"\n  skipped {p['where']}: {p['message']}" for p in done["problems"])
                )
        emit(done, as_json, lambda: console.print(msg))
        return
    if path is not None:
        raise InvalidInputError(
            f"unknown import {source!r}",
            field="source",
            hint="a dump file, memory-dir or claude-mem",
        )
    raw = read_input(source)
    started = time.perf_counter()
    with (
        open_vault(create=True) as vault,
        Progress(console=err_console, disable=as_json or not interactive(), transient=True) as bar,
    ):
        task = bar.add_task("embedding", total=None)
        summary = vault.import_(
            io.StringIO(decode(raw, field=source)),
            namespace=namespace,
            on_progress=lambda n, total: bar.update(task, completed=n, total=total),
        )
    took = time.perf_counter() - started
    emit(
        {
            "namespace": summary.namespace,
            "counts": summary.counts,
            "reembedded": summary.reembedded,
            "forgotten": summary.forgotten,
            "already_here": summary.already_here,
            "seconds": round(took, 2),
        },
        as_json,
        lambda: console.print(
            f"imported {summary.counts} into {summary.namespace} in {took:.1f} s"
            + (f" ({summary.reembedded} vectors computed)" if summary.reembedded else "")
            + (
                f"; {summary.forgotten} memories forgotten since the dump left out"
                if summary.forgotten
                else ""
            )
            + (
                f"; {summary.already_here} already here under another id (kept)"
                if summary.already_here
                else ""
            )
        ),
    )


def register(app: typer.Typer) -> None:
    app.command()(handle_errors(ingest))
    app.command()(handle_errors(export))
    app.command(name="import")(handle_errors(import_))
