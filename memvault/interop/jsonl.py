"""Reading memories from JSONL and plain text, with line numbers for every problem.

A JSONL line is an episode (the fields of ``EpisodeIn``) or, with ``"record": "fact"``, a
fact (the fields of ``FactIn``). Lines in the evaluation contract's turn format
(``conv_id, session_id, session_time_iso | session_time, turn_id, speaker, text``) are read
as episodes too: text → content, turn_id → external_id, the session time → occurred_at; an
episode's own fields beside them are kept (``"occurred_at"`` is the turn's own time). A field
neither kind has is refused with the name memvault reads for it ("time": did you mean
'occurred_at'?): dropped, it would leave every memory at the time of the import.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memvault.clock import RANGE_TEXT, DateRangeError, ensure_utc
from memvault.errors import Problem
from memvault.ingest.inputs import EpisodeIn, unknown_field

_TURN_KEYS = {
    "conv_id",
    "turn_id",
    "session_time",
    "session_time_iso",
    "img_caption",
    "blip_caption",
    "query",
    "dia_id",
}
# what a line in the turn format may hold: its own keys, and an episode's beside them
_TURN_LINE_KEYS = _TURN_KEYS | {"text", "speaker", "session_id", "record"}
_EPISODE_KEYS = frozenset(EpisodeIn.model_fields)


@dataclass
class ParsedLines:
    episodes: list[dict[str, Any]] = field(default_factory=list)
    episode_labels: list[str] = field(default_factory=list)
    facts: list[dict[str, Any]] = field(default_factory=list)
    fact_labels: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # what a reader left out on purpose, by why (a chat export's system prompts, tool calls…)
    left_out: dict[str, int] = field(default_factory=dict)


def parse_session_time(value: str) -> datetime:
    """ISO 8601, or LoCoMo's ``1:56 pm on 8 May, 2023``."""
    text = value.strip()
    try:
        return ensure_utc(datetime.fromisoformat(text.replace("Z", "+00:00")))
    except DateRangeError:
        raise
    except ValueError:
        pass
    cleaned = re.sub(r"\s+", " ", text.replace(",", ", ")).replace(" ,", ",")
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:  # strptime matches month names and am/pm case-insensitively
            parsed = datetime.strptime(cleaned, fmt)
        except ValueError:
            continue
        return ensure_utc(parsed)
    raise ValueError(f"{value!r} is not a date (use ISO 8601)")


def turn_to_episode(row: dict[str, Any]) -> dict[str, Any]:
    """The evaluation contract's turn → the fields of an episode."""
    content = row.get("text", "")
    caption = row.get("img_caption") or row.get("blip_caption")
    if caption:
        content = f"{content} [shared an image: {caption}]"
    when = row.get("session_time_iso") or row.get("session_time")
    out: dict[str, Any] = {"content": content}
    if row.get("speaker"):
        out["speaker"] = row["speaker"]
    if row.get("session_id") is not None:
        out["session_id"] = str(row["session_id"])
    if row.get("turn_id") is not None:
        out["external_id"] = str(row["turn_id"])
    if when:
        try:
            out["occurred_at"] = parse_session_time(str(when))
        except DateRangeError as exc:
            raise DateRangeError(exc.value, "session_time", RANGE_TEXT) from None
    return out


def parse_jsonl(raw: bytes) -> ParsedLines:
    parsed = ParsedLines()
    for number, line_bytes in enumerate(raw.split(b"\n"), start=1):
        if not line_bytes.strip():
            continue
        where = f"line {number}"
        try:
            line = line_bytes.decode("utf-8")
        except UnicodeDecodeError as exc:
            parsed.problems.append(Problem(where, f"not valid UTF-8 (byte {exc.start})"))
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            parsed.problems.append(Problem(where, f"not JSON: {exc.msg} at column {exc.colno}"))
            continue
        except RecursionError:
            parsed.problems.append(Problem(where, "JSON nested too deeply to read"))
            continue
        if not isinstance(row, dict):
            parsed.problems.append(Problem(where, "must be a JSON object"))
            continue
        try:
            _route(row, where, parsed)
        except ValueError as exc:
            parsed.problems.append(Problem(where, str(exc)))
    return parsed


def _route(row: dict[str, Any], where: str, parsed: ParsedLines) -> None:
    if row.get("record") == "fact":
        parsed.facts.append({k: v for k, v in row.items() if k != "record"})
        parsed.fact_labels.append(where)
        return
    if ("text" in row and "content" not in row) or _TURN_KEYS & row.keys():
        row = _turn_line(row)
    parsed.episodes.append({k: v for k, v in row.items() if k != "record"})
    parsed.episode_labels.append(where)


def _turn_line(row: dict[str, Any]) -> dict[str, Any]:
    known = _TURN_LINE_KEYS | _EPISODE_KEYS
    unknown = [k for k in row if k not in known]
    if unknown:
        raise ValueError("; ".join(f"{k}: {unknown_field(k, known - {'record'})}" for k in unknown))
    episode = turn_to_episode(row)
    episode.update({k: v for k, v in row.items() if k in _EPISODE_KEYS})
    return episode


def split_text(text: str, how: str) -> list[str]:
    if how == "lines":
        return [line for line in text.splitlines() if line.strip()]
    if how == "paragraphs":
        return [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    return [text] if text.strip() else []
