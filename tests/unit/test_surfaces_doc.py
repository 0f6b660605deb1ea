"""The surface table in the docs and the README's count are the registry's (issue 29.5)."""

from __future__ import annotations

import re
from pathlib import Path

from memvault.capabilities.registry import OPERATIONS, table

ROOT = Path(__file__).resolve().parents[2]


def test_docs_surfaces_is_generated_from_the_registry() -> None:
    assert (ROOT / "docs" / "surfaces.md").read_text() == table(), (
        "run: python -m memvault.capabilities.registry > docs/surfaces.md"
    )


def test_the_readme_counts_what_the_registry_lists() -> None:
    readme = (ROOT / "README.md").read_text()
    said = re.search(r"the clients offer (\d+) operations, every one not local-only", readme)
    assert said, "README's surfaces row no longer states the clients' count"
    remote = [op for op in OPERATIONS if not op.local]
    assert int(said.group(1)) == sum(op.client for op in OPERATIONS) == len(remote)
    assert "docs/surfaces.md" in readme
