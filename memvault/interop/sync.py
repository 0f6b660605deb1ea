"""Markdown sync as a dream stage: the MEMORY.md directories configured for a namespace
(``sync.memory_dirs``) are read on each dream, and what changed on disk becomes proposals: a
new file a new memory, a changed file an updated one, a file deleted on disk the retirement
of its memory. They go through the changes layer like every other change (routing, review,
journal, undo). The vault never writes into those directories (only ``memvault export
memory-dir`` does, when asked). ``memvault dream --skip-files`` skips the stage. A directory
with problems (malformed files, duplicate names) proposes nothing and reports them."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memvault.changes.workspace import Workspace
from memvault.interop import memory_dir
from memvault.kg.forgotten import ForgottenKeys
from memvault.kg.model import Episode, MemoryType, content_hash

PREFIX = "memory-dir:"


def sync_dirs(ws: Workspace, dirs: list[str], keys: ForgottenKeys | None = None) -> dict[str, Any]:
    """``keys``: the namespace's forgotten memories (memvault.kg.forgotten); a file whose
    text was forgotten stays out until its text changes."""
    keys = keys or ForgottenKeys()
    report: dict[str, Any] = {
        "dirs": len(dirs),
        "new": 0,
        "forgotten": 0,
        "changed": 0,
        "retired": 0,
        "retired_files": [],
        "problems": [],
    }
    held = {
        e.external_id[len(PREFIX) :]: e
        for e in ws.episodes.values()
        if e.external_id and e.external_id.startswith(PREFIX) and e.expired_at is None
    }
    for raw in dirs:
        directory = Path(raw).expanduser().resolve()
        reading = memory_dir.read_dir(directory, strict=False)
        if reading.problems:
            report["problems"] += [f"{directory}/{p.where}: {p.message}" for p in reading.problems]
            continue
        seen = set()
        for m in reading.memories:
            seen.add(m.name)
            item = memory_dir.episode_item(m)
            item["metadata"]["memory_dir"]["dir"] = str(directory)
            text = item["content"]
            before = held.get(m.name)
            if before is None:
                mtime = datetime.fromtimestamp((directory / m.file).stat().st_mtime, UTC)
                e = Episode(
                    namespace=ws.namespace,
                    content=text,
                    type=MemoryType(m.type),
                    external_id=item["external_id"],
                    content_hash=content_hash(ws.namespace, None, None, text),
                    occurred_at=min(mtime, ws.now),
                    created_at=ws.now,
                    metadata=item["metadata"],
                )
                if keys.matches(e, by_external_id=False):
                    report["forgotten"] += 1
                    continue
                ws.create(e, "files.new", f"new file {directory / m.file}", certainty=0.95)
                report["new"] += 1
            elif (before.metadata.get("memory_dir") or {}).get("body") != m.body:
                ws.update(
                    before,
                    "files.changed",
                    f"{directory / m.file} changed on disk",
                    certainty=0.9,
                    content=text,
                    type=MemoryType(m.type),
                    metadata={**before.metadata, **item["metadata"]},
                )
                report["changed"] += 1
        for name, e in held.items():
            if name in seen or not _from(e, directory, len(dirs)):
                continue
            gone = directory / str((e.metadata.get("memory_dir") or {}).get("file") or name)
            ws.update(
                e,
                "files.deleted",
                f"{gone} was deleted on disk: retire its memory",
                certainty=0.9,
                impact="medium",
                expired_at=ws.now,
            )
            report["retired"] += 1
            report["retired_files"].append(str(gone))
    return report


def _from(e: Episode, directory: Path, configured: int) -> bool:
    """Whether a memory came from ``directory``: the directory it was read from (synced, or
    imported by ``memvault import memory-dir``); a memory imported before the directory was
    recorded belongs to the namespace's only configured directory, when there is one."""
    stored = (e.metadata.get("memory_dir") or {}).get("dir")
    if not stored:
        return configured == 1
    return Path(str(stored)).expanduser().resolve() == directory
