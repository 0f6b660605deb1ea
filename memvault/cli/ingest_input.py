"""What `memvault ingest` reads: the input's bytes, its format (JSONL, text, a ChatGPT or
Claude export; sniffed unless named), and the check of every record before anything is
written, each problem in the order of the input."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from memvault.errors import InvalidInputError
from memvault.ingest.normalize import decode
from memvault.interop import chat_exports
from memvault.interop.jsonl import ParsedLines, parse_jsonl, split_text


def read_input(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror}", field="file") from exc


def looks_jsonl(raw: bytes) -> bool:
    """Input whose first line is a JSON object is JSONL whatever its name (stdin, notes.txt):
    read as text, each record would be stored as its own braces and quotes."""
    first = next((line for line in raw.splitlines() if line.strip()), b"").strip()
    if not first.startswith(b"{"):
        return False
    try:
        return isinstance(json.loads(first), dict)
    except (ValueError, RecursionError):
        return False


def parse_input(
    raw: bytes, fmt: str, path: str, split: str, defaults: dict[str, Any]
) -> ParsedLines:
    if fmt == "auto":
        fmt = chat_exports.sniff(raw) or (
            "jsonl" if path.endswith((".jsonl", ".ndjson")) or looks_jsonl(raw) else "text"
        )
        if fmt == "text" and (raw[:2] == b"PK" or json_array(raw)):
            raise InvalidInputError(
                "is a .zip or a JSON list that is no chat export memvault reads",
                field=path,
                hint="JSONL (one memory a line), text, or the conversations.json of a "
                "ChatGPT or Claude export (--format chatgpt | claude)",
            )
    if fmt in chat_exports.FORMATS:
        parsed = chat_exports.parse_export(raw, fmt, user=defaults.get("speaker"))
    elif fmt == "jsonl":
        parsed = parse_jsonl(raw)
    elif fmt == "text":
        parsed = ParsedLines()
        for i, chunk in enumerate(split_text(decode(raw, field=path), split), start=1):
            parsed.episodes.append({"content": chunk})
            parsed.episode_labels.append(f"{split[:-1] if split != 'none' else 'text'} {i}")
    else:
        raise InvalidInputError(
            f"unknown format {fmt!r}", field="--format", hint="auto, jsonl, text, chatgpt or claude"
        )
    for item in parsed.episodes:
        for key, value in defaults.items():
            if value is not None:
                item.setdefault(key, value)
    return parsed


def json_array(raw: bytes) -> bool:
    if raw.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] != b"[":
        return False
    try:
        return isinstance(json.loads(raw), list)
    except (ValueError, RecursionError):
        return False
