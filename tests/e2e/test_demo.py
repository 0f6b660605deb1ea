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
