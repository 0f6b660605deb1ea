"""What a real evaluation file holds that cannot be used as it is: turns with no readable
text, turn ids said again, questions recall would refuse. Each is skipped (or kept under its
id), counted and listed in the report, never fatal to the evaluation."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memvault.errors import InvalidInputError
from memvault.ingest.normalize import normalize_content, normalize_query

if TYPE_CHECKING:
    from memvault.eval.recall_eval import EvalReport

ALIAS = "\u241f"  # between a repeated turn id and its line: "t7␟42" ranks as "t7"


def usable_turns(
    turns: list[dict[str, Any]], path: str | Path, report: EvalReport, max_chars: int
) -> list[dict[str, Any]]:
    """Turns with usable text. Real chat logs hold empty turns, zero-width spaces and
    control characters: such a turn is skipped, counted and listed, never fatal. A turn id
    seen again in its conversation (real haystacks replay a session at another date) is
    counted and listed, never fatal: with the same text it is not ingested twice (the first
    stands); with another text it is kept as its own memory, ranked under the same id."""
    seen: dict[tuple[str, str], tuple[int, str]] = {}
    keep: list[dict[str, Any]] = []
    reasons: dict[str, int] = defaultdict(int)
    repeats: dict[str, int] = defaultdict(int)
    for row in turns:
        key = (str(row["conv_id"]), str(row["turn_id"]))
        text = " ".join(str(row["_episode"].get("content") or "").split())
        if key in seen:
            line, first = seen[key]
            kind = "same_text" if text == first else "other_text"
            repeats[kind] += 1
            if len(report.repeated_turns) < 50:
                report.repeated_turns.append(
                    {"where": f"{path}:{row['_line']}", "turn_id": key[1],
                     "first": f"{path}:{line}", "kind": kind}
                )  # fmt: skip
            if kind == "same_text":
                continue
            row["_episode"] = {**row["_episode"], "external_id": f"{key[1]}{ALIAS}{row['_line']}"}
        else:
            seen[key] = (row["_line"], text)
        try:
            normalize_content(str(row["_episode"].get("content") or ""), limit=max_chars)
        except InvalidInputError as exc:
            reason = str(exc).removeprefix("content: ")
            reasons[reason] += 1
            if len(report.skipped_turns) < 50:
                report.skipped_turns.append(
                    {"where": f"{path}:{row['_line']}", "turn_id": key[1], "why": reason}
                )
            continue
        keep.append(row)
    report.skipped = sum(reasons.values())
    report.skipped_reasons = dict(reasons)
    report.repeated = dict(repeats)
    return keep


def askable_questions(
    questions: list[dict[str, Any]], path: str | Path, report: EvalReport
) -> list[dict[str, Any]]:
    """The questions recall can be asked, each as recall reads it; one it would refuse is
    skipped and listed in ``report.skipped_questions``, never fatal to the evaluation."""
    keep = []
    for row in questions:
        try:
            keep.append({**row, "question": normalize_query(row["question"], field="question")})
        except InvalidInputError as exc:
            report.skipped_questions.append(
                {"where": f"{path}:{row['_line']}", "question_id": str(row["question_id"]),
                 "why": str(exc).removeprefix("question: ")}
            )  # fmt: skip
    return keep
