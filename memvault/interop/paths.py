"""Untrusted strings never become paths (architecture decision 10).

Everything memvault writes or moves in a directory it was given (a MEMORY.md export, plan
hygiene's ``.archive/`` and ``.trash/``) is named by a plain file name checked here, and the
path built from it must stay inside that directory once resolved. A stored name (a memory's
``metadata.memory_dir.file``, writable by any writer of the namespace) or a name read from a
file (an index line, a trash record) is only ever a candidate: :func:`why_unsafe` says what is
wrong with it, :func:`inside` refuses it with that reason.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

from memvault.errors import InvalidInputError

MAX_NAME = 120  # characters of a file name memvault writes; far below every filesystem's 255 bytes
_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]*$")


def why_unsafe(name: str, *, max_len: int = MAX_NAME) -> str | None:
    """Why ``name`` cannot name a file directly inside a directory, or None when it can."""
    if not isinstance(name, str) or not name:
        return "an empty name"
    if "\x00" in name:
        return "a NUL character in the name"
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in name):
        return "a control character in the name"
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        return "an absolute path"
    if "/" in name or "\\" in name or os.sep in name:
        return "a path separator (only a file name directly in the directory is allowed)"
    if name in (".", "..") or name.startswith(".."):
        return "a parent-directory reference"
    if len(name) > max_len or len(name.encode("utf-8")) > 240:
        return f"longer than {max_len} characters"
    if not _PLAIN.match(name):
        return "characters other than letters, digits, '.', '_', '-' and spaces"
    return None


def inside(directory: Path, name: str, *, what: str = "file name") -> Path:
    """``directory / name``, refused unless ``name`` is a plain file name and the path stays in
    ``directory`` once resolved (so a symlink already there cannot lead out of it)."""
    why = why_unsafe(name)
    if why is not None:
        raise InvalidInputError(
            f"{name!r} cannot be used: {why}",
            field=what,
            hint="memvault writes only plain file names inside the directory it was given",
        )
    base = directory.resolve()
    path = directory / name
    if path.is_symlink() or path.resolve().parent != base:
        raise InvalidInputError(
            f"{name!r} is a link that leads out of {directory}",
            field=what,
            hint="remove the link or use another directory",
        )
    return path


def leads_out(directory: Path, path: Path) -> bool:
    """Whether ``path`` (found in ``directory``) resolves to somewhere outside it: a symlink
    out, or a folder that is one."""
    try:
        return directory.resolve() not in path.resolve().parents
    except (OSError, RuntimeError):  # a symlink loop
        return True
