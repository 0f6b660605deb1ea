"""Under --json, stdout holds nothing but JSON, with a litellm model configured too: litellm's
banners and debug hints (printed on its errors) go to stderr. Real processes, real stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

MEMVAULT = str(Path(sys.executable).parent / "memvault")


def run(db: Path, model: str, mock: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "MEMVAULT_DB_PATH": str(db),
        "MEMVAULT_EMBEDDER": "hashing",
        "MEMVAULT_LLM_MODEL": model,
        "MEMVAULT_LLM_MOCK_RESPONSE": mock,
        "HF_HUB_OFFLINE": "1",
        "MEMVAULT_LLM_BACKOFF_S": "0.01",
    }
    return subprocess.run(
        [MEMVAULT, *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


ANSWER = json.dumps({"entities": [{"name": "Lisbon", "type": "place"}], "facts": []})


@pytest.mark.parametrize(
    ("model", "mock"),
    [
        ("gpt-4o-mini", ANSWER),
        ("gpt-4o-mini", "litellm.InternalServerError"),  # litellm raises
        ("no-such-provider-model", ANSWER),  # litellm prints its "Provider List" banner
    ],
)
def test_json_output_stays_json_with_a_model_configured(
    tmp_path: Path, model: str, mock: str
) -> None:
    """When the model fails, the offline rules extract instead (memvault.llm.resilient):
    nothing is skipped, and the JSON says which way it went only through the usage ledger."""
    db = tmp_path / "v.db"
    wrote = run(db, model, mock, "write", "I moved to Lisbon.", "--speaker", "Maya", "--json")
    assert wrote.returncode == 0, wrote.stderr
    data = json.loads(wrote.stdout)  # nothing but the JSON document
    assert data["created"] is True
    assert data["derivations_skipped"] == {}  # failed or not, the memory was derived
    found = run(db, model, mock, "recall", "Lisbon", "--json")
    assert found.returncode == 0 and json.loads(found.stdout)[0]["text"]
