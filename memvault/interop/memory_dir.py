"""MEMORY.md directories: the markdown memory layout agents already keep (docs/interop.md).

The layout: ``MEMORY.md`` is an index only (one line per memory, ``- [Title](file.md) —
hook``), and each memory is a file ``<type>_<slug>.md`` with YAML frontmatter (``name``: a
kebab-case slug, ``description``: one line, ``metadata.type``: user | feedback | project |
reference), a body (optionally ``**Why:**`` / ``**How to apply:**`` lines) and ``[[name]]``
links to other memories.

- :func:`read_dir` checks everything first and returns every problem by path and line
  (no frontmatter, an unknown type, a name that is not a slug or is used twice, an index
  line pointing nowhere, a file missing from the index); the importer writes nothing unless
  there are none.
- Each file becomes a typed episode (external id ``memory-dir:<name>``, so a second import
  adds only what is new); its frontmatter, title, hook and body are kept in the episode's
  metadata so :func:`write_dir` can write the layout back exactly. Links become ``links_to``
  relations between the memories; an unresolved link is listed as a memory worth writing;
  relative dates in bodies ("yesterday", "last week") are reported, since the layout wants
  absolute ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from memvault.errors import Problem
from memvault.interop.paths import leads_out, why_unsafe
from memvault.kg.model import Episode, MemoryType

INDEX = "MEMORY.md"
TYPES = ("user", "feedback", "project", "reference")
_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_INDEX_LINE = re.compile(
    r"^- \[(?P<title>[^\]]+)\]\((?P<file>[^)]+)\)(?:\s+[—–-]+\s+(?P<hook>.*))?$"
)
_LINK = re.compile(r"\[\[([^\]|#]+)(?:[|#][^\]]*)?\]\]")
_RELATIVE = re.compile(
    r"\b(?:today|tomorrow|yesterday|tonight|(?:last|next|this) (?:week|month|year|monday|"
    r"tuesday|wednesday|thursday|friday|weekend)|\d+ (?:days?|weeks?|months?|years?) ago|"
    r"recently|the other day)\b",
    re.IGNORECASE,
)


@dataclass
class Memory:
    file: str
    name: str
    description: str
    type: str
    body: str
    frontmatter: dict[str, Any]
    title: str
    hook: str | None
    position: int = 0  # its line in the index: the export keeps the order
    links: list[str] = field(default_factory=list)


@dataclass
class Reading:
    memories: list[Memory] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    relative_dates: list[dict[str, Any]] = field(default_factory=list)
    unresolved_links: list[dict[str, str]] = field(default_factory=list)


def _frontmatter(text: str) -> tuple[dict[str, Any] | None, str, str | None]:
    """(frontmatter, body, why not) of a memory file."""
    if not text.startswith("---\n"):
        return None, text, "no frontmatter (the file must start with a '---' line)"
    end = text.find("\n---\n", 4)
    if end < 0:
        end = text.find("\n---", 4)
        if end < 0 or text[end + 4 :].strip():
            return None, text, "the frontmatter is never closed with a '---' line"
    try:
        data = yaml.safe_load(text[4:end])
    except yaml.YAMLError as exc:
        return None, text, f"the frontmatter is not YAML: {str(exc).splitlines()[0]}"
    if not isinstance(data, dict):
        return None, text, "the frontmatter must be a mapping (name, description, metadata)"
    return data, text[end + 5 :], None


def read_dir(directory: Path, *, strict: bool = True) -> Reading:
    """The memories of a directory and every problem found. ``strict=False`` (the dream's
    sync): an index line whose file is gone is a deletion on disk, not a problem."""
    out = Reading()
    if not directory.is_dir():
        out.problems.append(Problem(str(directory), "not a directory"))
        return out
    index = directory / INDEX
    indexed: dict[str, tuple[int, str, str | None]] = {}  # file → (line, title, hook)
    if not index.exists():
        out.problems.append(Problem(str(index), "missing: the index of the memories"))
    else:
        for n, line in enumerate(index.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip() or line.startswith("#"):
                continue
            m = _INDEX_LINE.match(line.strip())
            if not m:
                out.problems.append(
                    Problem(f"{INDEX}:{n}", "not an index line '- [Title](file.md) — hook'")
                )
                continue
            target = m.group("file")
            if why := why_unsafe(target):
                out.problems.append(Problem(f"{INDEX}:{n}", f"cannot point to {target!r}: {why}"))
                continue
            if strict and not (directory / target).is_file():
                out.problems.append(
                    Problem(f"{INDEX}:{n}", f"points to {target}, which is not there")
                )
            indexed[target] = (n, m.group("title"), m.group("hook"))
    names: dict[str, str] = {}
    for path in sorted(directory.glob("*.md")):
        if path.name == INDEX:
            continue
        if (why := why_unsafe(path.name)) or leads_out(directory, path):
            reason = why or "a link that leads out of the directory (not read)"
            out.problems.append(Problem(f"{path.name}:1", f"cannot import this file: {reason}"))
            continue
        text = path.read_text(encoding="utf-8")
        fm, body, why = _frontmatter(text)
        where = f"{path.name}:1"
        if fm is None:
            out.problems.append(Problem(where, why or "unreadable"))
            continue
        name = fm.get("name")
        kind = (
            (fm.get("metadata") or {}).get("type") if isinstance(fm.get("metadata"), dict) else None
        )
        description = fm.get("description")
        bad = False
        if not isinstance(name, str) or not _SLUG.match(name):
            out.problems.append(Problem(where, f"name {name!r} is not a kebab-case slug"))
            bad = True
        elif name in names:
            out.problems.append(Problem(where, f"name {name!r} is also used by {names[name]}"))
            bad = True
        if kind not in TYPES:
            out.problems.append(
                Problem(where, f"metadata.type {kind!r} is not one of {', '.join(TYPES)}")
            )
            bad = True
        if (
            not isinstance(description, str)
            or not description.strip()
            or "\n" in description.strip()
        ):
            out.problems.append(Problem(where, "description must be one line of text"))
            bad = True
        if path.name not in indexed:
            out.problems.append(Problem(where, f"missing from {INDEX}"))
            bad = True
        if bad:
            continue
        assert isinstance(name, str) and isinstance(kind, str) and isinstance(description, str)
        names[name] = path.name
        position, title, hook = indexed[path.name]
        for n, line in enumerate(body.splitlines(), start=1):
            for m in _RELATIVE.finditer(line):
                out.relative_dates.append({"file": path.name, "line": n, "text": m.group(0)})
        out.memories.append(
            Memory(
                file=path.name,
                name=name,
                description=description.strip(),
                type=kind,
                body=body,
                frontmatter=fm,
                title=title,
                hook=hook,
                position=position,
                links=list(dict.fromkeys(_LINK.findall(body))),
            )
        )
    known = {mem.name for mem in out.memories}
    for mem in out.memories:
        for link in mem.links:
            if link not in known:
                out.unresolved_links.append({"file": mem.file, "link": link})
    return out


def episode_item(m: Memory) -> dict[str, Any]:
    """The write item of a memory: its body (or description) as content, the rest kept."""
    content = m.body.strip() or m.description
    return {
        "content": content,
        "type": m.type,
        "external_id": f"memory-dir:{m.name}",
        "speaker": None,
        "metadata": {
            "memory_dir": {
                "file": m.file,
                "name": m.name,
                "title": m.title,
                "hook": m.hook,
                "position": m.position,
                "frontmatter": m.frontmatter,
                "body": m.body,
                "links": m.links,
            }
        },
    }


def _slug(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())[:6]
    return "-".join(words) or "memory"


def _one_line(text: Any, *, title: bool = False, limit: int = 300) -> str:
    """A stored title or hook as it may stand in an index line: one line (a newline in a
    writer's title would forge index lines), and a title without the brackets that end it."""
    flat = " ".join(str(text or "").split())
    if title:
        flat = flat.replace("[", "").replace("]", "")
    return flat if len(flat) <= limit else flat[: limit - 1].rsplit(" ", 1)[0] + "…"


def file_name(kind: str, name: str, stored: Any, used: set[str]) -> str:
    """The file an export writes a memory to. Named by memvault, never by a writer: the stored
    file name (kept so an imported directory comes back as it was) only when it is a plain
    ``.md`` name (:func:`memvault.interop.paths.why_unsafe`), else ``<type>_<slug>.md``."""
    candidate = stored if isinstance(stored, str) else ""
    if why_unsafe(candidate) or not candidate.endswith(".md") or candidate == INDEX:
        candidate = f"{kind}_{name.replace('-', '_')}.md"
    while candidate in used:
        candidate = f"{candidate[:-3]}_{len(used)}.md"
    return candidate


def render(e: Episode, used: set[str]) -> tuple[str, str, str]:
    """(file name, file text, index line) of an episode in the layout. ``used`` holds the
    names and files taken so far (both are added to)."""
    kept = (e.metadata or {}).get("memory_dir")
    if isinstance(kept, dict) and isinstance(kept.get("frontmatter"), dict):
        fm, body = dict(kept["frontmatter"]), str(kept.get("body") or e.content)
        name = str(kept.get("name") or "")
        if not _SLUG.match(name) or len(name) > 80:
            name = _slug(name or e.content)
        title = _one_line(kept.get("title"), title=True) or name
        hook = _one_line(kept.get("hook")) or None
        stored_file = kept.get("file")
    else:  # a typed memory that did not come from a directory: named from its words
        name = _slug(e.content)
        first = e.content.strip().splitlines()[0]
        description = first if len(first) <= 150 else first[:149].rsplit(" ", 1)[0] + "…"
        fm = {"name": name, "description": description, "metadata": {"type": e.type.value}}
        body = e.content.strip() + "\n"
        title, hook = name.replace("-", " ").capitalize(), _one_line(description)
        stored_file = None
    while name in used:
        name = f"{name}-{e.id[:6]}"
    fm["name"] = name
    file = file_name(e.type.value, name, stored_file, used)
    used.update((name, file))
    front = yaml.safe_dump(fm, sort_keys=False, allow_unicode=True)
    text = f"---\n{front}---\n{body}"
    line = f"- [{title}]({file})" + (f" — {hook}" if hook else "")
    return file, text, line


def exportable(episodes: Iterable[Episode]) -> list[Episode]:
    """The typed, live memories the layout can hold (episodic turns are not memories of it)."""
    return [
        e for e in episodes if e.expired_at is None and e.type in {MemoryType(t) for t in TYPES}
    ]
