"""Imports point one way: the changes layer imports the domain, the store port and settings,
never a producer of changes; the domain model imports no adapter."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "memvault"


def _imports(folder: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
        found[str(path.relative_to(PACKAGE.parent))] = names
    return found


def _offenders(folder: Path, forbidden: tuple[str, ...]) -> list[str]:
    return [
        f"{module} imports {name}"
        for module, names in _imports(folder).items()
        for name in sorted(names)
        if name.startswith(forbidden)
    ]


def test_the_changes_layer_imports_no_producer() -> None:
    producers = ("memvault.dream", "memvault.lint", "memvault.lifecycle", "memvault.graphs",
                 "memvault.recall", "memvault.vault", "memvault.cli", "api", "workers",
                 "memvault.persona.stage", "memvault.persona.service",
                 "memvault.interop")  # fmt: skip
    assert _offenders(PACKAGE / "changes", producers) == []


def test_the_domain_model_imports_no_adapter() -> None:
    adapters = ("memvault.kg.sqlite", "memvault.kg.cypher", "memvault.coord", "memvault.llm",
                "memvault.embed", "sqlite3", "redis", "neo4j", "falkordb", "litellm")  # fmt: skip
    offenders = [
        o for o in _offenders(PACKAGE / "kg", adapters) if o.startswith("memvault/kg/model")
    ]
    assert offenders == []


def test_the_llm_port_knows_no_feature() -> None:
    features = ("memvault.ingest", "memvault.dream", "memvault.lint", "memvault.recall",
                "memvault.changes", "memvault.lifecycle")  # fmt: skip
    assert _offenders(PACKAGE / "llm", features) == []
