"""Plan hygiene ("clarity"): classify the markdown plan files of a directory and tidy them,
never touching what is in use (docs/interop.md).

Classes, first match wins:

- **active**: modified today (by ``now``'s date), or named as current (its name holds one of
  ``plans.current_names``);
- **completed**: a terminal marker (``plans.markers``: COMPLETED, "-- Done", "No further
  planning", ...) in the H1 line or the last non-empty line, and nowhere else counts (a
  "Done" in a checklist or a middle heading is not completion);
- **stale**: older than ``plans.stale_days`` and smaller than ``plans.stale_max_bytes``;
- **dormant**: older than ``plans.dormant_days``, any size;
- else **recent**.

Agent sub-plans (``<parent>-agent-<task>.md``) take their parent's class unless themselves
active, and go with it. Completed plans are archived (moved to ``.archive/`` with a record in
``.archive/ARCHIVE.jsonl``), stale stubs are moved to ``.trash/`` (``TRASH.jsonl``; restore
with ``memvault plans DIR --restore NAME``), never unlinked; dormant ones are only reported;
active and recent ones are never touched. The dry run is the default, and ``apply`` does
exactly what the report lists: it re-classifies first and refuses if anything changed since.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memvault.config import PlanSettings
from memvault.errors import ConflictError, InvalidInputError, NotFoundError
from memvault.interop.paths import inside, leads_out

ARCHIVE, TRASH = ".archive", ".trash"
_AGENT = re.compile(r"^(?P<parent>.+?)-agent-(?P<task>.+)\.md$")


@dataclass
class PlanFile:
    name: str
    cls: str  # active | completed | stale | dormant | recent
    reason: str
    action: str  # none | archive | trash | report
    size: int
    age_days: float
    parent: str | None = None  # an agent sub-plan's parent file
    sub_plans: list[str] = field(default_factory=list)


def _terminal(line: str, markers: list[str]) -> str | None:
    """The marker ``line`` ends a plan with: an all-capitals marker matched as written, the
    others in any case; whole words, and not negated ("not finalized" is not final)."""
    for m in markers:
        flags = 0 if m.isupper() else re.IGNORECASE
        for found in re.finditer(rf"(?<!\w){re.escape(m)}(?!\w)", line, flags):
            before = line[: found.start()].lower().split()
            if not before or before[-1] not in ("not", "isn't", "never", "no", "un"):
                return m
    return None


def classify_text(text: str, markers: list[str]) -> str | None:
    """The marker that completes this plan, found only in its H1 line or last non-empty line."""
    lines = [x for x in text.splitlines() if x.strip()]
    if not lines:
        return None
    h1 = next((x for x in lines if x.startswith("# ")), None)
    for where, line in (("H1", h1), ("last line", lines[-1])):
        if line is not None and (m := _terminal(line, markers)):
            return f"'{m}' in the {where}"
    return None


def scan(directory: Path, now: datetime, s: PlanSettings) -> list[PlanFile]:
    if not directory.is_dir():
        raise InvalidInputError(
            f"{directory} is not a directory", field="dir", hint="give the folder of plans"
        )
    today = now.astimezone(UTC).date()
    out: dict[str, PlanFile] = {}
    for path in sorted(directory.glob("*.md")):
        stat = path.stat()
        mtime = datetime.fromtimestamp(stat.st_mtime, UTC)
        age = max((now - mtime).total_seconds() / 86400.0, 0.0)
        text = path.read_text(encoding="utf-8", errors="replace")
        done = classify_text(text, s.markers)
        name = path.name
        if mtime.date() == today:
            cls, why = "active", "modified today"
        elif any(c.lower() in name.lower() for c in s.current_names):
            cls, why = "active", "named as current"
        elif done:
            cls, why = "completed", done
        elif age > s.stale_days and stat.st_size < s.stale_max_bytes:
            cls, why = (
                "stale",
                f"{age:.0f} days old, {stat.st_size} bytes (< {s.stale_max_bytes})",
            )
        elif age > s.dormant_days:
            cls, why = "dormant", f"{age:.0f} days old"
        else:
            cls, why = "recent", f"{age:.0f} days old, not finished"
        out[name] = PlanFile(name, cls, why, "none", stat.st_size, round(age, 2))
    for name, plan in out.items():  # sub-plans follow their parent unless active themselves
        m = _AGENT.match(name)
        parent = out.get(f"{m.group('parent')}.md") if m else None
        if parent is None or plan.cls == "active":
            continue
        plan.parent = parent.name
        plan.cls, plan.reason = parent.cls, f"agent sub-plan of {parent.name} ({parent.cls})"
    for plan in out.values():
        plan.action = {"completed": "archive", "stale": "trash", "dormant": "report"}.get(
            plan.cls, "none"
        )
        if plan.parent and plan.action in ("archive", "trash"):
            out[plan.parent].sub_plans.append(plan.name)
    return list(out.values())


def report(plans: list[PlanFile]) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for p in plans:
        counts[p.cls] = counts.get(p.cls, 0) + 1
    return {"counts": counts, "files": [asdict(p) for p in plans]}


def apply(
    directory: Path, now: datetime, s: PlanSettings, expected: list[PlanFile] | None = None
) -> list[PlanFile]:
    """Do what the report lists: archive completed plans (their sub-plans in the same record),
    move stale stubs to the trash. With ``expected`` (the dry run's report), refuse if the
    directory no longer classifies the same."""
    plans = scan(directory, now, s)
    if expected is not None and [asdict(p) for p in plans] != [asdict(p) for p in expected]:
        raise ConflictError("the plans changed since the dry run; run it again and review")
    for plan in plans:
        if plan.parent or plan.action not in ("archive", "trash"):
            continue  # sub-plans move with their parent
        folder = _folder(directory, ARCHIVE if plan.action == "archive" else TRASH)
        folder.mkdir(exist_ok=True)
        moved = [plan.name, *plan.sub_plans]
        for name in moved:
            shutil.move(str(inside(directory, name)), str(_free(inside(folder, name))))
        record = {
            "file": plan.name,
            "sub_plans": plan.sub_plans,
            "class": plan.cls,
            "reason": plan.reason,
            "at": now.isoformat(),
        }
        log = folder / ("ARCHIVE.jsonl" if plan.action == "archive" else "TRASH.jsonl")
        with log.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, sort_keys=True) + "\n")
    return plans


def restore(directory: Path, name: str) -> list[str]:
    """Move a trashed or archived plan (and what went with it) back; the names restored. The
    name and the records' names are plain file names inside the folders, or refused."""
    inside(directory, name, what="name")
    for kind in (TRASH, ARCHIVE):
        folder = _folder(directory, kind)
        src = inside(folder, name, what="name")
        if src.exists():
            if (directory / name).exists():
                raise ConflictError(f"{name} exists again in {directory}; move it away first")
            log = folder / ("TRASH.jsonl" if kind == TRASH else "ARCHIVE.jsonl")
            group = _group(log, name)
            names = [name, *(n for n in group if inside(folder, n, what=log.name).exists())]
            for n in names:
                shutil.move(str(inside(folder, n)), str(inside(directory, n)))
            return names
    raise NotFoundError("trashed or archived plan", name, str(directory))


def _group(log: Path, name: str) -> list[str]:
    """The sub-plans that were moved with ``name``, as its record lists them."""
    if not log.is_file():
        return []
    for line in log.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line the user edited by hand: the others still count
        if isinstance(record, dict) and record.get("file") == name:
            subs = record.get("sub_plans")
            return [str(n) for n in subs] if isinstance(subs, list) else []
    return []


def _folder(directory: Path, kind: str) -> Path:
    """``.archive`` or ``.trash`` inside ``directory``; refused when it is a link leading out."""
    folder = directory / kind
    if folder.is_symlink() and leads_out(directory, folder):
        raise InvalidInputError(
            f"{folder} is a link that leads out of {directory}",
            field="dir",
            hint=f"remove the link; memvault moves plans only into {kind}/ inside the folder",
        )
    return folder


def _free(target: Path) -> Path:
    """``target``, or ``name.N.md`` when an earlier move left a file of that name."""
    n = 1
    candidate = target
    while candidate.exists():
        candidate = target.with_name(f"{target.stem}.{n}{target.suffix}")
        n += 1
    return candidate
