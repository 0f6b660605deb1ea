"""The README's first command runs ``memvault demo``: it must show the whole main job."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from memvault.demo import run_demo


def test_demo_writes_recalls_dreams_and_fills_the_inbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMVAULT_EMBEDDER", "hashing")
    out = io.StringIO()
    summary = run_demo(tmp_path / "demo.db", Console(file=out, width=120))
    text = out.getvalue()
    for step in (
        "1. write",
        "2. recall",
        "3. facts",
        "4. dream, dry run",
        "5. dream --apply",
        "6. inbox",
        "7. persona",
    ):
        assert step in text
    assert "Lisbon" in summary["top"]["Where does Maya live?"]  # the current value first
    assert summary["lives_in_now"] == ["Lisbon"]  # the move superseded Berlin
    assert "Lisbon" in summary["top_after_dream"]
    assert "kept for history: states a fact superseded on 2025-06-15" in " ".join(text.split())
    assert summary["dream_counts"]["consolidate.supersede"] >= 2
    assert summary["dream_counts"]["consolidate.merge_episode"] == 2  # the repeated preference
    assert summary["review_items"] == 1  # two managers named at once: a human decides
    assert summary["attitudes"] == {  # said twice by June: one attitude, faded since
        "prefer dark mode in every tool": "current",
        "prefer short answers with code examples": "faded",
    }
    again = run_demo(tmp_path / "demo.db", Console(file=io.StringIO()))  # re-runnable
    assert again["lives_in_now"] == ["Lisbon"]


def test_two_demo_runs_print_the_same_text_apart_from_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Statements made at the same time are ordered by time, session order and text, never by
    their random ids: the review proposes the same change and recall explains the same way
    on every run."""
    import re

    monkeypatch.setenv("MEMVAULT_EMBEDDER", "hashing")
    runs = []
    for n in range(2):
        out = io.StringIO()
        run_demo(tmp_path / f"demo{n}.db", Console(file=out, width=120))
        text = re.sub(r"[0-9a-f]{12,}", "ID", out.getvalue())
        text = re.sub(r"\b(?:rv|dr)_[0-9A-Za-z_]+", "RUN", text)
        runs.append(text.replace(str(tmp_path / f"demo{n}.db"), "DB"))
    assert runs[0] == runs[1]


def test_the_commands_the_demo_suggests_work_as_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Printed with the demo's clock and one to a line, each shows what the demo promised:
    the recall, the persona as of the demo's day, the review the human rejected, the run."""
    import shlex

    from typer.testing import CliRunner

    from memvault.cli.main import app

    monkeypatch.setenv("MEMVAULT_EMBEDDER", "hashing")
    monkeypatch.setenv("MEMVAULT_DATA_DIR", str(tmp_path / "data"))
    out = io.StringIO()
    run_demo(tmp_path / "demo.db", Console(file=out, width=60))  # narrow: lines must not wrap
    lines = [
        line.strip().removeprefix("try:").strip()
        for line in out.getvalue().splitlines()
        if "memvault --db" in line
    ]
    assert len(lines) == 6
    said = {}
    for line in lines:
        args = shlex.split(line)[1:]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, (line, result.output)
        said[args[2]] = result.output
    assert "running" in said["recall"]
    assert "dark mode" in said["persona"]
    assert "rejected" in said["review"]
    assert "restored" in said["dream"] or "applied" in said["dream"]
