"""Read-only import of a claude-mem database (docs/interop.md).

The source is opened read-only through an SQLite URI (``mode=ro``; ``immutable=1`` as well
when no write-ahead log sits beside it, so SQLite takes no lock and writes nothing): its bytes
and modification time are the same after any import, a failed one included.

Supported: the schema claude-mem publishes (``src/services/sqlite/schema.sql``, migrations up
to 35), and older ones that have at least ``observations(id, memory_session_id, project,
type, created_at_epoch or created_at)`` and any of ``title``, ``subtitle``, ``narrative``,
``text``, ``facts``. Each observation becomes one episode: its title, subtitle, narrative (or
text) and facts as the content, its session as the session, its creation time as when it
happened, its type mapped to a memory type (decisions, features, fixes, changes: project;
discoveries: reference; the rest: episodic) and kept in the metadata, and the external id
``claude-mem:<id>``. A watermark (the highest observation id imported, per source and
project) makes a second import read only what is new. Skipped: session summaries, user
prompts, pending messages, directives and feedback rows, and observations with no text.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memvault.clock import ensure_utc
from memvault.errors import DateRangeError, InvalidInputError

TYPES = {
    "decision": "project",
    "feature": "project",
    "bugfix": "project",
    "refactor": "project",
    "change": "project",
    "config": "project",
    "test": "project",
    "docs": "reference",
    "discovery": "reference",
}
TEXT_COLUMNS = ("title", "subtitle", "narrative", "text", "facts")
REQUIRED = ("id", "memory_session_id", "project", "type")


def connect(path: Path) -> sqlite3.Connection:
    """The source, read-only; immutable (no locks, nothing written) when it has no WAL."""
    if not path.is_file():
        raise InvalidInputError(f"{path} is not a file", field="path", hint="a claude-mem .db")
    wal = Path(f"{path}-wal")
    uri = f"file:{path.resolve().as_posix()}?mode=ro" + ("" if wal.exists() else "&immutable=1")
    try:
        con = sqlite3.connect(uri, uri=True)
        con.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        raise InvalidInputError(
            f"{path} is not an SQLite database ({exc})", field="path", hint="a claude-mem .db"
        ) from None
    return con


def columns(con: sqlite3.Connection) -> set[str]:
    cols = {row[1] for row in con.execute("PRAGMA table_info(observations)")}
    missing = [c for c in REQUIRED if c not in cols]
    if not cols or missing:
        raise InvalidInputError(
            "not a claude-mem database: "
            + ("no observations table" if not cols else f"observations lacks {', '.join(missing)}"),
            field="path",
            hint="supported: claude-mem's published schema (migrations up to 35) and older "
            "ones with observations(id, memory_session_id, project, type, created_at)",
        )
    if not {"created_at_epoch", "created_at"} & cols:
        raise InvalidInputError("observations has no creation time", field="path")
    return cols


def _when(row: dict[str, Any]) -> datetime | None:
    """When the observation was made, or None when its time cannot be read or lies outside
    the range memvault holds (an epoch of 1e17, '2024-13-45'): such a row is skipped and
    counted, never fatal."""
    epoch = row.get("created_at_epoch")
    when: datetime | None = None
    if isinstance(epoch, int | float) and not isinstance(epoch, bool) and epoch > 0:
        try:
            when = datetime.fromtimestamp(epoch / 1000 if epoch > 1e11 else epoch, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    else:
        raw = row.get("created_at")
        if not isinstance(raw, str) or not raw:
            return None
        try:
            when = datetime.fromisoformat(raw.replace("Z", "+00:00"))
        except ValueError:
            return None
    try:
        return ensure_utc(when)
    except DateRangeError:
        return None


def _facts(raw: Any) -> str:
    if not raw:
        return ""
    try:
        items = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError:
        return str(raw)
    if isinstance(items, list):
        return "\n".join(f"- {x}" for x in items if str(x).strip())
    return str(items)


def content(row: dict[str, Any]) -> str:
    parts = [row.get("title"), row.get("subtitle"), row.get("narrative") or row.get("text")]
    text = "\n".join(str(p).strip() for p in parts if p and str(p).strip())
    facts = _facts(row.get("facts"))
    return "\n".join(p for p in (text, facts) if p)


def observations(
    con: sqlite3.Connection, cols: set[str], after_id: int, project: str | None
) -> Iterator[dict[str, Any]]:
    wanted = [c for c in (*REQUIRED, *TEXT_COLUMNS, "created_at_epoch", "created_at") if c in cols]
    sql = f"SELECT {', '.join(wanted)} FROM observations WHERE id > ?"
    params: list[Any] = [after_id]
    if project is not None:
        sql += " AND project = ?"
        params.append(project)
    for values in con.execute(sql + " ORDER BY id", params):
        yield dict(zip(wanted, values, strict=True))


def item(row: dict[str, Any]) -> dict[str, Any] | str:
    """The write item of an observation, or why it is skipped (no text, no readable time)."""
    text, when = content(row), _when(row)
    if not text:
        return "skipped_empty"
    if when is None:
        return "skipped_bad_time"
    kind = str(row.get("type") or "")
    return {
        "content": text,
        "type": TYPES.get(kind, "episodic"),
        "session_id": str(row["memory_session_id"])[:256] if row.get("memory_session_id") else None,
        "external_id": f"claude-mem:{row['id']}",
        "occurred_at": when,
        "speaker": "claude-mem",
        "metadata": {"claude_mem": {"id": row["id"], "type": kind, "project": row.get("project")}},
    }
