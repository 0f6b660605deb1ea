"""`memvault --help` reads as prose: a command's summary wraps at the terminal's width, not
where its source lines happened to end."""

from __future__ import annotations

import inspect
import itertools

import typer.main
from typer.testing import CliRunner

from memvault.cli.main import app


def _summary_rows(shown: str, names: set[str]) -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    current = None
    for line in shown.splitlines():
        if not line.startswith("│"):
            continue
        cell = line.strip("│").rstrip()
        words = cell.split()
        if words and words[0] in names and cell.startswith(" " + words[0]):
            current = words[0]
            rows[current] = [cell.split(current, 1)[1].strip()]
        elif current and words:
            rows[current].append(cell.strip())
    return rows


def test_every_command_summary_wraps_at_the_width_not_at_source_line_breaks() -> None:
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    firsts = {name: inspect.cleandoc(c.help or "").split("\n\n")[0] for name, c in commands.items()}
    # The case this guards: summaries written over several source lines.
    assert sum("\n" in first for first in firsts.values()) >= 5
    shown = CliRunner().invoke(app, ["--help"]).output
    rows = _summary_rows(shown, set(firsts))
    width = max(len(row) for lines in rows.values() for row in lines)
    for name, first in firsts.items():
        lines = rows[name]
        assert " ".join(lines).split() == first.replace("`", "").split(), name
        for row, after in itertools.pairwise(lines):
            # A row ends early only when the next word would not have fitted on it.
            assert len(row) + 1 + len(after.split()[0]) > width, (name, row, after)
