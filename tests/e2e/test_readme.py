"""The README as a new user meets it: its first command builds a fresh ``.venv`` in a copy of
the checkout and runs the demo; then every ``bash`` block of the README runs there, in order,
in that venv (the embedded ``memvault serve`` on loopback included, stopped at the end).

What the test adds, and nothing else: the user's own input files the README names
(``notes.jsonl``, ``journal.txt``, ``T.jsonl``, ``Q.jsonl``, a ``memory`` directory, a
``claude-mem.db``, a ``plans`` folder, a ``chatgpt-export.zip``), a free port instead of 8080,
the id of the newest run for the ``RUN_ID`` placeholder, and a data folder of its own. The
block that needs Docker (``docker compose``) cannot run here and is left out. This test
installs a whole venv (from pip's cache when warm: about a minute)."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import zipfile
from pathlib import Path

from memvault.devservers import free_port

ROOT = Path(__file__).resolve().parents[2]
RUN_ID = (
    '"$(memvault dream runs -n maya --json'
    ' | python -c \'import json, sys; print(json.load(sys.stdin)[0]["run_id"])\')"'
)

TURNS = [
    ("s1", "2024-01-05T10:00:00", "t1", "Maya", "I live in Berlin and work at Helio Labs."),
    ("s1", "2024-01-05T10:00:00", "t2", "Ben", "Nice! How is the team?"),
    ("s2", "2024-06-01T10:00:00", "t3", "Maya", "We moved to Lisbon last week."),
    ("s2", "2024-06-01T10:00:00", "t4", "Maya", "I started surfing in Ericeira."),
]
QUESTIONS = [
    {"question_id": "q1", "question": "Where does Maya live?", "evidence_turn_ids": ["t3"]},
    {"question_id": "q2", "question": "What sport did Maya start?", "evidence_turn_ids": ["t4"]},
]


def _inputs(where: Path) -> None:
    notes = [
        {"content": "Standup moves to 9:30 from Monday.", "type": "project"},
        {"content": "Prefers short answers with code.", "type": "feedback"},
        {"record": "fact", "subject": "Maya", "predicate": "works at", "object": "Helio Labs",
         "valid_at": "2024-03-01"},
    ]  # fmt: skip
    (where / "notes.jsonl").write_text("".join(json.dumps(n) + "\n" for n in notes))
    (where / "journal.txt").write_text("Went surfing in Ericeira.\n\nLunch with Tobias.\n")
    turns = [
        {"conv_id": "c1", "session_id": s, "session_time_iso": t, "turn_id": i, "speaker": who,
         "text": text}
        for s, t, i, who, text in TURNS
    ]  # fmt: skip
    (where / "T.jsonl").write_text("".join(json.dumps(t) + "\n" for t in turns))
    qs = [{"conv_id": "c1", **q} for q in QUESTIONS]
    (where / "Q.jsonl").write_text("".join(json.dumps(q) + "\n" for q in qs))
    memory = where / "memory"
    memory.mkdir()
    (memory / "user_short-answers.md").write_text(
        "---\nname: short-answers\ndescription: Maya wants short answers\n"
        "metadata:\n  type: user\n---\nMaya prefers short answers with code.\n"
    )
    (memory / "MEMORY.md").write_text("- [Short answers](user_short-answers.md) — style\n")
    con = sqlite3.connect(where / "claude-mem.db")
    con.executescript(
        "CREATE TABLE observations (id INTEGER PRIMARY KEY, memory_session_id TEXT NOT NULL,"
        " project TEXT NOT NULL, type TEXT NOT NULL, title TEXT, narrative TEXT,"
        " created_at TEXT NOT NULL, created_at_epoch INTEGER NOT NULL);"
        "INSERT INTO observations VALUES (1, 's1', 'shop', 'decision', 'Use Postgres',"
        " 'Billing moves to Postgres.', '2024-05-01T10:00:00Z', 1714557600000);"
    )
    con.commit()
    con.close()
    (where / "plans").mkdir()
    (where / "plans" / "search.md").write_text("# Ship search\n- [ ] index\n")
    with zipfile.ZipFile(where / "chatgpt-export.zip", "w") as archive:
        archive.writestr("conversations.json", json.dumps(_CHATGPT))


def _message(key: str, parent: str, role: str, text: str, at: float) -> dict[str, object]:
    content = {"content_type": "text", "parts": [text]}
    message = {"id": key, "author": {"role": role}, "create_time": at, "content": content}
    return {"id": key, "parent": parent, "message": message}


_CHATGPT = [
    {
        "title": "Cello practice",
        "create_time": 1_717_000_000,
        "conversation_id": "c-1",
        "current_node": "a1",
        "mapping": {
            "root": {"id": "root", "parent": None, "message": None},
            "u1": _message("u1", "root", "user", "How long should I practise scales?", 1.7e9),
            "a1": _message("a1", "u1", "assistant", "Ten minutes a day is plenty.", 1.7e9 + 9),
        },
    }
]


def _checkout(dest: Path) -> Path:
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in files:
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


def _env(tmp_path: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMVAULT_", "VIRTUAL_ENV"))}
    venv_bin = str(ROOT / ".venv" / "bin")
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != venv_bin)
    return env | {"MEMVAULT_DATA_DIR": str(tmp_path / "data"), "MEMVAULT_SERVER__PORT": str(port)}


def test_every_readme_command_runs_in_the_venv_its_first_command_makes(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first, *blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.S)
    assert first.splitlines()[0].startswith("bash scripts/demo.sh")
    checkout = _checkout(tmp_path / "checkout")
    port = free_port()
    env = _env(tmp_path, port)

    demo = subprocess.run(
        ["bash", "scripts/demo.sh"], cwd=checkout, env=env, capture_output=True, text=True,
        timeout=1500,
    )  # fmt: skip
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    assert (checkout / ".venv" / "bin" / "memvault").exists()
    assert "Lisbon" in demo.stdout

    _inputs(checkout)
    runnable = [b for b in blocks if "docker compose" not in b]
    assert len(runnable) == len(blocks) - 1
    script = "\n".join(
        [
            "set -euo pipefail",
            "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT",
            *(b.replace("localhost:8080", f"localhost:{port}") for b in runnable),
        ]
    ).replace("RUN_ID", RUN_ID)
    done = subprocess.run(
        ["bash", "-c", script], cwd=checkout, env=env, capture_output=True, text=True, timeout=600
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, said[-6000:]
    assert "restored" in done.stdout  # the dream block's undo
    assert "recall@10" in said  # the evaluation ran on the user's files
    said_json = _objects(done.stdout)  # curl prints each answer without a newline
    recalls = [r["hits"] for r in said_json if "hits" in r]
    assert any("Lisbon" in h["text"] for hits in recalls for h in hits)  # the server's recall
    assert "Biscuit" in recalls[-1][0]["text"]  # the REST write, found by meaning and words
    erased = [r for r in said_json if "episode_ids" in r and "applied" in r]
    assert [r["applied"] for r in erased] == [False, True]  # the preview, then the erase
    assert erased[0]["episode_ids"] == erased[1]["episode_ids"]


def _objects(text: str) -> list[dict]:
    """Every JSON object printed in ``text``, in order."""
    decoder, found, i = json.JSONDecoder(), [], 0
    while (i := text.find("{", i)) != -1:
        try:
            obj, i = decoder.raw_decode(text, i)
        except ValueError:
            i += 1
            continue
        if isinstance(obj, dict):
            found.append(obj)
    return found
