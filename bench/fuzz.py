"""Hostile input, counted: the REST API under schemathesis (requests tried, 4xx by status,
5xx: target 0) and the CLI under hostile arguments and files (cases tried, tracebacks: target
0, exit codes other than 0 / 2). Prints one JSON document.

    .venv/bin/python bench/fuzz.py --api-examples 50 --cli-cases 300
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MEMVAULT = str(Path(sys.executable).parent / "memvault")
HOSTILE_TEXT = [
    "",
    " ",
    "\u200b\u200b",
    "\x00\x01\x02",
    "a\nb",
    "😀" * 500,
    "x" * 200_000,
    "I prefer " + "very " * 5000 + "short answers",
    '{"content": "hi"}',
    "../../etc/passwd",
    "- [x](../../x.md)",
    "\u202e\u2066bidi",
]
HOSTILE_NS = ["", " ", "a\n", "../x", "a" * 200, "_memvault", "\u200b", "ns;rm -rf"]
HOSTILE_DATES = ["0001-01-01", "9999-12-31T23:59:59-01:00", "yesterday", "2024-13-45", "1e17"]


def api_fuzz(examples: int, tmp: Path) -> dict[str, Any]:
    from api.app import create_app
    from memvault import MemVault
    from memvault.embed import HashingEmbedder
    from memvault.jobs import InProcessJobs
    from tests.http import ADMIN, SECRET, serving

    vault = MemVault.open(
        tmp / "fuzz.db", embedder=HashingEmbedder(), secret_key=SECRET, server={"admin_key": ADMIN}
    )
    vault.write("I live in Porto and my manager is Ana.", speaker="Bo", namespace="bo")
    report = tmp / "report"
    started = time.monotonic()
    with serving(create_app(vault, InProcessJobs(vault.c))) as url:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "schemathesis.cli",
                "run",
                f"{url}/openapi.json",
                "--checks",
                "not_a_server_error",
                "--header",
                f"Authorization: Bearer {ADMIN}",
                "--max-examples",
                str(examples),
                "--phases",
                "examples,coverage,fuzzing",
                "--seed",
                "11",
                "--workers",
                "1",
                "--request-timeout",
                "30",
                "--report",
                "har",
                "--report-dir",
                str(report),
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "SCHEMATHESIS_HOOKS": "tests.fuzz_hooks"},
            cwd=ROOT,
            check=False,
        )
    vault.close()
    statuses: Counter[int] = Counter()
    for har in report.rglob("*"):  # the HAR report: every request and its response
        if not har.is_file():
            continue
        try:
            entries = json.loads(har.read_text())["log"]["entries"]
        except (ValueError, KeyError, TypeError):
            continue
        for entry in entries:
            statuses[int(entry["response"]["status"])] += 1
    cases = re.search(r"(\d+) generated, (\d+) passed", done.stdout)
    return {
        "requests": sum(statuses.values()),
        "cases_generated": int(cases.group(1)) if cases else None,
        "status_4xx": {str(k): v for k, v in sorted(statuses.items()) if 400 <= k < 500},
        "status_2xx_3xx": sum(v for k, v in statuses.items() if k < 400),
        "status_5xx": sum(v for k, v in statuses.items() if k >= 500),
        "schemathesis_exit": done.returncode,
        "seconds": round(time.monotonic() - started, 1),
    }


def cli_cases(n: int, tmp: Path, rng: random.Random) -> list[list[str]]:
    """argv lists: hostile texts, namespaces, dates and files against the commands."""
    db = str(tmp / "cli.db")
    files = []
    for i, line in enumerate(
        [
            "[" * 50_000 + "]" * 50_000,
            json.dumps({"content": "\x00" * 10}),
            json.dumps({"content": 5, "type": {"a": 1}}),
            json.dumps({"record": "fact", "subject": " ", "predicate": "!", "object": ""}),
            "not json at all",
            json.dumps({"content": "ok", "occurred_at": "0001-01-01T00:00:00+01:00"}),
            "\ufeff" + json.dumps({"content": "bom"}),
            json.dumps([{"mapping": 5, "title": ["x"]}, {"mapping": {"a": {"message": 1}}}]),
            json.dumps([{"chat_messages": [{"sender": "human"}, 7], "created_at": "2024-13-45"}]),
            "PK\x03\x04 not a zip at all",
        ]
    ):
        path = tmp / f"hostile{i}.jsonl"
        path.write_text(line + "\n", encoding="utf-8")
        files.append(str(path))
    base = ["--db", db]
    out: list[list[str]] = [[*base, "init"]]
    for _ in range(n):
        kind = rng.randrange(7)
        if kind == 0:
            out.append([*base, "write", rng.choice(HOSTILE_TEXT), "--json"])
        elif kind == 1:
            out.append([*base, "write", "hello", "-n", rng.choice(HOSTILE_NS)])
        elif kind == 2:
            out.append([*base, "recall", rng.choice(HOSTILE_TEXT) or "x", "--as-of",
                        rng.choice(HOSTILE_DATES)])  # fmt: skip
        elif kind == 3:
            out.append(
                [
                    *base,
                    "ingest",
                    rng.choice(files),
                    rng.choice(["--json", "--skip-invalid", "--dry-run"]),
                ]
            )
        elif kind == 4:
            out.append([*base, "diary", "--date", rng.choice(HOSTILE_DATES)])
        elif kind == 5:
            out.append([*base, "facts", "--subject", rng.choice([" ", "\t", "\x00", "a" * 300])])
        else:
            missing = str(tmp / f"missing{rng.randrange(1000)}.db")
            out.append(["--db", missing, rng.choice(["recall", "stats", "facts"]), "x"][:4])
    return out


def cli_fuzz(n: int, tmp: Path) -> dict[str, Any]:
    rng = random.Random(7)
    env = {**os.environ, "MEMVAULT_EMBEDDER": "hashing", "HF_HUB_OFFLINE": "1"}
    codes: Counter[int] = Counter()
    tracebacks: list[str] = []
    started = time.monotonic()
    for argv in cli_cases(n, tmp, rng):
        done = subprocess.run(
            [MEMVAULT, *[a.replace("\x00", "") for a in argv]],  # argv cannot carry NUL
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
        codes[done.returncode] += 1
        if "Traceback (most recent call last)" in done.stderr + done.stdout:
            tracebacks.append(" ".join(a[:40] for a in argv[2:]))
    return {
        "cases": sum(codes.values()),
        "exit_codes": {str(k): v for k, v in sorted(codes.items())},
        "tracebacks": len(tracebacks),
        "traceback_cases": tracebacks[:10],
        "seconds": round(time.monotonic() - started, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--api-examples", type=int, default=50)
    ap.add_argument("--cli-cases", type=int, default=300)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="memvault-fuzz-") as tmp:
        result = {
            "api": api_fuzz(args.api_examples, Path(tmp)),
            "cli": cli_fuzz(args.cli_cases, Path(tmp)),
        }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
