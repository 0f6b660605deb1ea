"""``memvault eval recall``: the evaluation contract of ARCHITECTURE.md."""

from __future__ import annotations

import dataclasses
import json
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import Progress, TaskID
from rich.table import Table

from memvault.cli.output import JsonOpt, console, err_console, handle_errors, interactive

app = typer.Typer(rich_markup_mode="markdown", help="Measure memvault.", no_args_is_help=True)


@app.command("recall")
@handle_errors
def recall_cmd(
    turns: Annotated[Path, typer.Option(help="TURNS.jsonl (conv_id, session_id, turn_id, ...).")],
    questions: Annotated[Path, typer.Option(help="QUESTIONS.jsonl (conv_id, question_id, ...).")],
    k: Annotated[int, typer.Option("--k", "-k", help="Turns ranked per question.")] = 10,
    out: Annotated[Path | None, typer.Option(help="Write RANKED.jsonl here.")] = None,
    db: Annotated[
        Path | None,
        typer.Option(help="Vault file to build (default: a temporary one, deleted after)."),
    ] = None,
    dream: Annotated[
        bool, typer.Option("--dream", help="Run one dream (apply) per conversation first.")
    ] = False,
    baselines: Annotated[
        bool,
        typer.Option(
            "--baselines",
            help="Also score BM25, the embedder's cosine and their rank fusion on the same "
            "stored turns, side by side (they read every turn; memvault as of the question).",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Ingest TURNS into a fresh vault (one namespace per conv_id), recall every question,
    write the ranked turn ids, and print recall@k per category when evidence is given;
    with --baselines, beside BM25, cosine and their fusion on the same turns."""
    from memvault.eval.recall_eval import dream_each, run_recall_eval
    from memvault.vault import MemVault

    with tempfile.TemporaryDirectory(prefix="memvault-eval-") as tmp:
        path = db or Path(tmp) / "eval.db"
        if path.exists():
            from memvault.errors import InvalidInputError

            raise InvalidInputError(
                f"{path} exists; the evaluation needs a fresh vault", field="--db"
            )
        with (
            MemVault.open(path, sqlite_synchronous="NORMAL") as vault,
            Progress(
                console=err_console, disable=as_json or not interactive(), transient=True
            ) as bar,
        ):
            tasks: dict[str, TaskID] = {}

            def progress(stage: str, n: int, total: int) -> None:
                if stage not in tasks:
                    tasks[stage] = bar.add_task(stage, total=total)
                bar.advance(tasks[stage], n)

            handle = out.open("w", encoding="utf-8") if out else None
            try:
                dreams: dict[str, Any] = {}

                def after_ingest(v: Any, last_times: dict[str, Any]) -> None:
                    dreams.update(dream_each(v, last_times))

                report = run_recall_eval(
                    vault,
                    turns,
                    questions,
                    k=k,
                    out=handle,
                    on_progress=progress,
                    after_ingest=after_ingest if dream else None,
                    baselines=baselines,
                )
                if dream:
                    report.extra["dreams"] = dreams
            finally:
                if handle:
                    handle.close()
    data = dataclasses.asdict(report)
    if as_json:
        typer.echo(json.dumps(data, indent=2))
        return
    key = f"recall@{k}"
    others = report.baselines
    shown = {"bm25": "BM25", "cosine": "cosine", "rrf(bm25, cosine)": "their fusion"}
    table = Table(
        "category",
        "questions",
        "memvault",
        *(shown.get(name, name) for name in others),
        title=f"{key}" + (" (baselines read every turn)" if others else ""),
    )
    below = set(report.below_baselines)
    for name, row in report.per_category.items():
        theirs = [o["per_category"].get(name, {}).get(key) for o in others.values()]
        table.add_row(
            name,
            str(row["n"]),
            _cell(row[key], name in below),
            *(f"{b:.4f}" for b in theirs if b is not None),
        )
    if report.overall is not None:
        theirs = [o["overall"] for o in others.values()]
        table.add_row(
            "[bold]overall[/] (not adversarial)",
            "",
            f"[bold]{_cell(report.overall, 'overall' in below)}[/]",
            *(f"{b:.4f}" for b in theirs if b is not None),
        )
    console.print(
        f"{report.conversations} conversations, {report.turns} turns, "
        f"{report.questions} questions (ingest {report.ingest_s:.1f}s, "
        f"recall {report.recall_s:.1f}s)"
    )
    if report.skipped:
        reasons = ", ".join(f"{n} {why}" for why, n in report.skipped_reasons.items())
        console.print(f"[yellow]skipped: {report.skipped} turns[/] with no usable text ({reasons})")
        for t in report.skipped_turns[:10]:
            console.print(f"  {t['where']} turn {t['turn_id']}", highlight=False)
    if report.skipped_questions:
        console.print(
            f"[yellow]skipped: {len(report.skipped_questions)} questions[/] recall would refuse"
        )
        for q in report.skipped_questions[:10]:
            console.print(
                f"  {q['where']} question {q['question_id']}: {q['why']}", highlight=False
            )
    if report.repeated:
        kinds = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in report.repeated.items())
        console.print(
            f"[yellow]repeated turn ids: {sum(report.repeated.values())}[/] ({kinds}; the same "
            "text counted once, another text kept under the same id)"
        )
        for t in report.repeated_turns[:10]:
            console.print(
                f"  {t['where']} turn {t['turn_id']} (first: {t['first']})", highlight=False
            )
    if report.undated_sessions:
        console.print(
            f"{report.undated_sessions} sessions had no date: each placed one minute after "
            "the session before it in the file"
        )
    if report.per_category:
        console.print(table)


def _cell(value: float, below: bool) -> str:
    """memvault's figure, marked red where a baseline beats it (``report.below_baselines``)."""
    return f"[red]{value:.4f}[/] (below a baseline)" if below else f"{value:.4f}"
