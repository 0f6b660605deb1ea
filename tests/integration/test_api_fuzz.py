"""Schemathesis over the live OpenAPI spec (uvicorn, real HTTP, a real vault): generated
valid and invalid requests to every operation, with an admin key so they reach the code
behind auth. No request may get a 5xx."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from api.app import create_app
from memvault import MemVault
from memvault.embed import HashingEmbedder
from memvault.jobs import InProcessJobs
from tests.http import ADMIN, SECRET, serving

ROOT = Path(__file__).resolve().parents[2]


def test_schemathesis_finds_no_server_error(tmp_path: Path) -> None:
    vault = MemVault.open(
        tmp_path / "fuzz.db",
        embedder=HashingEmbedder(),
        secret_key=SECRET,
        server={"admin_key": ADMIN},
    )
    vault.write("I live in Porto and my manager is Ana.", speaker="Bo", namespace="bo")
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
                "25",
                "--phases",
                "examples,coverage,fuzzing",
                "--seed",
                "7",
                "--workers",
                "1",
                "--request-timeout",
                "30",
                "--report-dir",
                str(tmp_path / "report"),
            ],
            capture_output=True,
            text=True,
            timeout=900,
            # dates at the edge of time for every date-time field (tests/fuzz_hooks.py)
            env={**os.environ, "SCHEMATHESIS_HOOKS": "tests.fuzz_hooks"},
            cwd=ROOT,
        )
    vault.close()
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    cases = re.search(r"(\d+) generated, (\d+) passed", done.stdout)
    assert cases is not None, done.stdout[-3000:]
    assert int(cases.group(2)) == int(cases.group(1)) > 500  # every generated case, and many
