"""Interop throughput and plan hygiene on generated inputs.

- a MEMORY.md directory of ``--files`` memories (10k): ``import memory-dir`` files/s;
- a claude-mem database of ``--observations`` rows (100k, claude-mem's published schema):
  ``import claude-mem`` observations/s, and a second import (nothing new) for the watermark;
- a plan directory with planted classes and decoys ("Done" in a checklist line, "Complete" in
  a middle heading, "not finalized" in the last line): classification accuracy, and how many
  active or decoy plans ``apply`` archived or trashed (must be 0).

    .venv/bin/python bench/interop.py [--files 10000] [--observations 100000] [--plans 400]

The vault uses the hashing embedder unless ``--embedder default``: throughput then measures
the importers and the write path, not the embedding model (see docs/benchmarks.md#ingest).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from memvault import FixedClock, MemVault
from memvault.config import PlanSettings
from memvault.embed import HashingEmbedder
from memvault.interop import plans

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
TYPES = ["user", "feedback", "project", "reference"]
WORDS = "billing search cache deploy review docs queue export login pager budget team".split()


def memory_dir(root: Path, n: int, rng: random.Random) -> Path:
    d = root / "memories"
    d.mkdir()
    lines: list[str] = []
    names: list[str] = []
    for i in range(n):
        kind = TYPES[i % 4]
        name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{i}"
        link = f" See [[{rng.choice(names)}]]." if names and i % 10 else ""  # one in ten: none
        names.append(name)
        front = yaml.safe_dump(
            {"name": name, "description": f"note {i} on {name}", "metadata": {"type": kind}},
            sort_keys=False,
        )
        body = f"Memory {i}: the {rng.choice(WORDS)} decision of 2026-01-{1 + i % 28:02d}.{link}\n"
        file = f"{kind}_{name}.md"
        (d / file).write_text(f"---\n{front}---\n{body}", encoding="utf-8")
        lines.append(f"- [{name}]({file}) — {kind} {i}")
    (d / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return d


def claude_mem(root: Path, n: int, rng: random.Random) -> Path:
    db = root / "claude-mem.db"
    con = sqlite3.connect(db)
    con.executescript(
        "CREATE TABLE observations (id INTEGER PRIMARY KEY AUTOINCREMENT, memory_session_id TEXT"
        " NOT NULL, project TEXT NOT NULL, text TEXT, type TEXT NOT NULL, title TEXT, subtitle"
        " TEXT, facts TEXT, narrative TEXT, concepts TEXT, created_at TEXT NOT NULL,"
        " created_at_epoch INTEGER NOT NULL);"
    )
    base = int(NOW.timestamp() * 1000)
    kinds = ["decision", "feature", "bugfix", "discovery", "change", "refactor"]
    con.executemany(
        "INSERT INTO observations (memory_session_id, project, type, title, narrative, facts,"
        " created_at, created_at_epoch) VALUES (?, ?, ?, ?, ?, ?, '', ?)",
        (
            (
                f"s{i // 20}",
                f"p{i % 5}",
                rng.choice(kinds),
                f"{rng.choice(WORDS)} {i}",
                f"Changed the {rng.choice(WORDS)} path in step {i}.",
                json.dumps([f"fact {i}"]),
                base + i * 1000,
            )
            for i in range(n)
        ),
    )
    con.commit()
    con.close()
    return db


def plan_dir(root: Path, n: int, rng: random.Random) -> tuple[Path, dict[str, str]]:
    d = root / "plans"
    d.mkdir()
    truth: dict[str, str] = {}
    pad = "details " * 400
    kinds = ["active", "completed", "stale", "dormant", "decoy-check", "decoy-head", "decoy-neg"]
    for i in range(n):
        kind = kinds[i % len(kinds)]
        age = {"active": 0, "stale": 9, "dormant": 20}.get(kind, rng.choice([9, 20]))
        text = {
            "active": f"# Plan {i}\n- [ ] step\n",
            "completed": f"# Plan {i}\n{pad}\n-- Done\n",
            "stale": f"# idea {i}\n",
            "dormant": f"# Plan {i}\n{pad}\n",
            "decoy-check": f"# Plan {i}\n- [x] Done with setup\n{pad}\n- [ ] finish\n",
            "decoy-head": f"# Plan {i}\n## Complete the rollout\n{pad}\n",
            "decoy-neg": f"# Plan {i}\n{pad}\nDesign not finalized\n",
        }[kind]
        name = f"plan-{i}.md"
        (d / name).write_text(text, encoding="utf-8")
        when = (NOW - timedelta(days=age)).timestamp()
        os.utime(d / name, (when, when))
        truth[name] = kind
    return d, truth


def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    out: dict[str, Any] = {}
    kw: dict[str, Any] = {} if args.embedder == "default" else {"embedder": HashingEmbedder()}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        d = memory_dir(root, args.files, rng)
        db = claude_mem(root, args.observations, rng)
        with MemVault.open(root / "v.db", clock=FixedClock(NOW), **kw) as vault:
            started = time.perf_counter()
            done = vault.import_memory_dir(d, namespace="files")
            secs = time.perf_counter() - started
            out["memory_dir"] = {
                "files": done["files"],
                "seconds": round(secs, 1),
                "files_per_s": round(done["files"] / secs, 1),
                "links": done["links"],
                "unresolved_links": len(done["unresolved_links"]),
            }
            started = time.perf_counter()
            first = vault.import_claude_mem(db, namespace="cm")
            secs = time.perf_counter() - started
            started = time.perf_counter()
            second = vault.import_claude_mem(db, namespace="cm")
            out["claude_mem"] = {
                "observations": first["read"],
                "imported": first["imported"],
                "seconds": round(secs, 1),
                "observations_per_s": round(first["read"] / secs, 1),
                "second_import_read": second["read"],
                "second_import_s": round(time.perf_counter() - started, 3),
            }
        pdir, truth = plan_dir(root, args.plans, rng)
        found = {p.name: p for p in plans.scan(pdir, NOW, PlanSettings())}
        right = 0
        for name, kind in truth.items():
            age = (NOW - datetime.fromtimestamp((pdir / name).stat().st_mtime, UTC)).days
            want = {"active": "active", "completed": "completed", "stale": "stale"}.get(
                kind, "dormant" if age > 14 else "recent"
            )
            right += found[name].cls == want
        plans.apply(pdir, NOW, PlanSettings())
        protected = [n for n, k in truth.items() if k == "active" or k.startswith("decoy")]
        touched = [n for n in protected if not (pdir / n).exists()]
        out["plans"] = {
            "files": len(truth),
            "accuracy": round(right / len(truth), 3),
            "active_or_decoy_moved": len(touched),
            "archived": len(list((pdir / ".archive").glob("*.md"))),
            "trashed": len(list((pdir / ".trash").glob("*.md"))),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--observations", type=int, default=100_000)
    ap.add_argument("--plans", type=int, default=400)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--embedder", choices=["hashing", "default"], default="hashing")
    json.dump(run(ap.parse_args()), sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
