"""Global options where people type them (issue "A newcomer's first hour"): ``--db`` before
or after the subcommand, through the installed entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from memvault.cli.main import GLOBAL_OPTIONS, app, hoist_globals

ENTRY = [sys.executable, "-c", "from memvault.cli.main import main; main()"]


def _run(*args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEMVAULT_EMBEDDER": "hashing", "MEMVAULT_DATA_DIR": str(tmp)}
    env.pop("MEMVAULT_DB_PATH", None)
    return subprocess.run(
        [*ENTRY, *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def _commands() -> list[str]:
    group = typer.main.get_command(app)
    return sorted(group.commands)  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", _commands())
def test_every_command_reads_the_global_options_in_either_position(command: str) -> None:
    """No command has an option of its own named like a global one, and hoisting moves the
    global option (with its value, or written with '=') in front of any command."""
    group = typer.main.get_command(app)
    sub = group.commands[command]  # type: ignore[attr-defined]
    own = {o for p in sub.params for o in getattr(p, "opts", [])}
    if own & set(GLOBAL_OPTIONS):  # its own --db: the demo's file (recreated), left as typed
        assert command == "demo"
        assert hoist_globals([command, "--db", "d.db"]) == [command, "--db", "d.db"]
        return
    assert hoist_globals([command, "x", "--db", "v.db"]) == ["--db", "v.db", command, "x"]
    assert hoist_globals([command, "--db=v.db"]) == ["--db=v.db", command]
    assert hoist_globals(["--db", "v.db", command]) == ["--db", "v.db", command]
    assert hoist_globals([command, "--", "--db", "v"]) == [command, "--", "--db", "v"]


def test_init_write_and_recall_with_the_db_after_the_command(tmp_path: Path) -> None:
    after, before = tmp_path / "after.db", tmp_path / "before.db"
    for db, position in ((after, "after"), (before, "before")):

        def cli(*args: str, db: Path = db, position: str = position) -> str:
            line = [*args, "--db", str(db)] if position == "after" else ["--db", str(db), *args]
            done = _run(*line, tmp=tmp_path)
            assert done.returncode == 0, done.stderr
            return done.stdout

        assert str(db) in cli("init")
        cli("write", "I adopted a beagle named Biscuit.", "--speaker", "Ana")
        hits = json.loads(cli("recall", "beagle", "--json"))
        assert [h["text"] for h in hits][:1] == ["I adopted a beagle named Biscuit."]
        assert db.exists()
    assert not (tmp_path / "memvault.db").exists()  # neither run fell back to the default


def test_a_global_option_without_its_value_says_so(tmp_path: Path) -> None:
    done = _run("init", "--db", tmp=tmp_path)
    assert done.returncode != 0 and "--db" in done.stderr
