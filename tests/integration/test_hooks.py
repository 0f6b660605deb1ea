"""The SessionStart hook's contract (31.4), through a real process: the event's JSON on stdin,
the primer of the session's project on stdout (plain, or Claude Code's JSON), and on any error
nothing on stdout, one line on stderr and exit status 0: a hook never fails the agent's
session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder

T0 = datetime(2025, 3, 1, tzinfo=UTC)
MAIN = "from memvault.cli.main import app; app(prog_name='memvault')"


def _hook(
    db: Path, stdin: bytes, *args: str, command: str = "session-start"
) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "MEMVAULT_DB_PATH": str(db),
        "MEMVAULT_EMBEDDER": "hashing",
        "HF_HUB_OFFLINE": "1",
    }
    return subprocess.run(
        [sys.executable, "-c", MAIN, "hook", command, *args],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=120,
    )


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hook") / "v.db"
    with MemVault.open(path, embedder=HashingEmbedder(), clock=FixedClock(T0)) as vault:
        for i, text in enumerate(
            [
                "Deploys go through `make release` after the 2.4.1 tag.",
                "The billing service moved to Postgres 16 last week.",
            ]
        ):
            vault.write(text, namespace="billing-api", type="project", now=T0 + timedelta(i))
        vault.write("Unrelated: the garden needs compost.", namespace="garden", type="project")
        for ns in ("billing-api", "garden"):
            vault.fold(namespace=ns, apply=True)
        assert "make release" in vault.primer(namespace="billing-api").text
    return path


def test_the_primer_of_the_session_s_project_is_printed(db: Path) -> None:
    event = {"session_id": "abc", "cwd": "/home/dev/src/billing-api", "source": "startup"}
    done = _hook(db, json.dumps(event).encode())
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "make release" in out and "Postgres 16" in out and "compost" not in out

    done = _hook(db, json.dumps(event).encode(), "--output", "claude-code")
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "SessionStart"
    assert answer["additionalContext"].strip() == out.strip()

    # a project the vault has no namespace for: --namespace says which
    other = {"cwd": "/home/dev/src/unknown"}
    done = _hook(db, json.dumps(other).encode(), "--namespace", "garden")
    assert "compost" in done.stdout.decode() and done.returncode == 0


@pytest.mark.parametrize(
    "stdin",
    [b"not json at all", b"[1, 2, 3]", b"\xff\xfe\x00 garbage", b'{"cwd": 12}' + b" " * 10],
)
def test_a_bad_event_prints_nothing_and_exits_0(db: Path, stdin: bytes) -> None:
    done = _hook(db, stdin)
    assert done.returncode == 0
    if stdin.startswith(b'{"cwd": 12}'):  # readable, no project: the default namespace
        assert "memvault hook" not in done.stderr.decode()
        return
    assert done.stdout == b""
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memvault hook session-start: no primer")


def test_no_vault_prints_nothing_and_exits_0(tmp_path: Path) -> None:
    done = _hook(tmp_path / "missing.db", b'{"cwd": "/x/billing-api"}')
    assert done.returncode == 0 and done.stdout == b""
    assert "no vault at" in done.stderr.decode()
    assert not (tmp_path / "missing.db").exists()  # a hook never creates a vault


def test_a_project_folded_inside_a_namespace_gets_its_own_primer(tmp_path: Path) -> None:
    """claude-mem keeps every project in one history: its projects fold into their own
    cells, and the hook of a session in that project's directory prints that project's."""
    db = tmp_path / "v.db"
    with MemVault.open(db, embedder=HashingEmbedder(), clock=FixedClock(T0)) as vault:
        for project, text in (
            ("payments", "Refunds go through `make refund-batch` nightly."),
            ("website", "The landing page is built with `npm run build:site`."),
        ):
            meta = {"claude_mem": {"project": project, "type": "change"}}
            vault.write(text, type="project", metadata=meta)
        vault.fold(apply=True)
    done = _hook(db, json.dumps({"cwd": "/home/dev/payments"}).encode())
    out = done.stdout.decode()
    assert done.returncode == 0 and "make refund-batch" in out and "npm run" not in out


def _memories(db: Path, namespace: str) -> list[str]:
    with MemVault.open(db, embedder=HashingEmbedder(), clock=FixedClock(T0)) as vault:
        return [e.content for e in vault.store.list_episodes(namespace)]


def test_a_prompt_brings_what_other_sessions_said_and_is_kept(tmp_path: Path) -> None:
    """``UserPromptSubmit``: the memories of other sessions that matter for the prompt,
    never this session's own (the agent holds them) nor the prompt said again; the prompt
    is then kept as the user's memory."""
    db = tmp_path / "v.db"
    with MemVault.open(db, embedder=HashingEmbedder(), clock=FixedClock(T0)) as vault:
        vault.write("My knees hurt after long runs.", speaker="Sam", session_id="old", now=T0)
        vault.write("The cat knocked over the plant.", speaker="Sam", session_id="old", now=T0)
        vault.write("Knees again: the stairs hurt today.", speaker="Sam", session_id="now")
    prompt = "Any stretches for knees that hurt after runs?"
    event = {"prompt": prompt, "session_id": "now", "cwd": "/home/sam"}
    done = _hook(db, json.dumps(event).encode(), "--speaker", "Sam", command="prompt")
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert out.startswith("Memories that may matter here (memvault):")
    assert "Sam: My knees hurt after long runs." in out
    assert "stairs" not in out and "cat" not in out  # this session's; below the floor
    kept = _memories(db, "default")
    assert prompt in kept and len(kept) == 4
    # said again: the prompt is no memory of its own beside it; Claude Code's JSON
    again = {"prompt": prompt, "session_id": "later"}
    done = _hook(db, json.dumps(again).encode(), "--output", "claude-code", command="prompt")
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "UserPromptSubmit"
    assert prompt not in answer["additionalContext"]
    assert "Knees again: the stairs" in answer["additionalContext"]  # another session now
    done = _hook(
        db, json.dumps(again | {"prompt": "thanks"}).encode(), "--no-write", command="prompt"
    )
    assert done.returncode == 0 and len(_memories(db, "default")) == 5


@pytest.mark.parametrize("stdin", [b"not json", b'{"prompt": 12}', b'{"prompt": "   "}', b""])
def test_a_prompt_hook_without_a_prompt_prints_nothing_and_exits_0(
    tmp_path: Path, stdin: bytes
) -> None:
    done = _hook(tmp_path / "missing.db", stdin, command="prompt")
    assert done.returncode == 0 and done.stdout == b""
    assert not (tmp_path / "missing.db").exists()
    if stdin == b"not json":
        assert done.stderr.decode().startswith("memvault hook prompt: nothing recalled")


def test_a_pasted_prompt_is_asked_by_its_start_and_kept_whole(tmp_path: Path) -> None:
    """A prompt over recall's 4,000 characters (a pasted log) made the hook print nothing
    and keep nothing; a memory that long filled the context."""
    db = tmp_path / "v.db"
    with MemVault.open(db, embedder=HashingEmbedder(), clock=FixedClock(T0)) as vault:
        vault.write("The deploy log showed a timeout at step 7. " * 40, speaker="Sam", now=T0)
    prompt = "Why does the deploy time out at step 7? " + "log line 42\n" * 1000
    done = _hook(db, json.dumps({"prompt": prompt, "session_id": "s2"}).encode(), command="prompt")
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    (line,) = done.stdout.decode().splitlines()[1:]
    assert "timeout at step 7" in line and len(line) < 450
    kept = [m for m in _memories(db, "default") if m.startswith("Why does the deploy")]
    assert len(kept) == 1 and len(kept[0]) > 4000
