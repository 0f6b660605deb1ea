"""`dream --all` looks across namespaces (31.6): the same memory in two namespaces is listed
(same words, or nearly the same meaning), nothing is merged or changed across them, and a
memory alone in its namespace is not listed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault import MemVault
from memvault.cli.main import app
from memvault.embed import HashingEmbedder

SHARED = "Deploys of the billing service go through make release after tagging."


def _seed(vault: MemVault) -> None:
    vault.write(SHARED, namespace="billing")
    vault.write("  deploys of the BILLING service go through make release after tagging. ",
                namespace="ops")  # fmt: skip
    vault.write("The billing service keeps invoices for seven years.", namespace="billing")
    vault.write("The garden needs compost every spring, says Ana.", namespace="garden")


def test_cross_namespace_duplicates_are_listed_and_nothing_is_merged(tmp_path: Path) -> None:
    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder()) as vault:
        _seed(vault)
        before = {ns: vault.stats(namespace=ns)["episodes"] for ns in vault.namespaces()}
        found = vault.cross_namespace_duplicates()
        assert found["namespaces"] == 3 and found["compared"] == 4
        [pair] = found["pairs"]
        assert {pair["a"]["namespace"], pair["b"]["namespace"]} == {"billing", "ops"}
        assert pair["same_words"] and pair["cosine"] == 1.0
        # nearly the same meaning: a low threshold lists more, never across one namespace
        loose = vault.cross_namespace_duplicates(threshold=0.2)["pairs"]
        assert all(p["a"]["namespace"] != p["b"]["namespace"] for p in loose)
        runs = [vault.dream(namespace=ns, apply=True, force=True) for ns in vault.namespaces()]
        assert all(r.status == "applied" for r in runs)
        after = {ns: vault.stats(namespace=ns)["episodes"] for ns in vault.namespaces()}
        assert after == before
        assert (
            vault.get_episode(pair["a"]["id"], namespace=pair["a"]["namespace"]).expired_at is None
        )
        assert (
            vault.get_episode(pair["b"]["id"], namespace=pair["b"]["namespace"]).expired_at is None
        )


def test_dream_all_reports_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMVAULT_DB_PATH", str(tmp_path / "v.db"))
    monkeypatch.setenv("MEMVAULT_EMBEDDER", "hashing")
    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder()) as vault:
        _seed(vault)
    out = CliRunner().invoke(app, ["dream", "--all", "--force", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert [r["namespace"] for r in data["runs"]] == ["billing", "garden", "ops"]
    assert all(r["seconds"] >= 0 for r in data["runs"])  # each run's time (34.5)
    assert len(data["cross_namespace_duplicates"]["pairs"]) == 1
    out = CliRunner().invoke(app, ["dream", "--all", "--force"])
    assert "reported, never merged" in out.stdout and "same words" in out.stdout


def test_an_applied_dream_reports_its_chunks_as_they_commit(tmp_path: Path) -> None:
    """34.5: ``on_chunk`` is called after each committed chunk of an apply (the CLI's bar)."""
    from datetime import UTC, datetime

    from memvault import FixedClock
    from tests import maya

    t = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)
    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder(),
                       clock=FixedClock(datetime(2025, 9, 1, tzinfo=UTC))) as vault:  # fmt: skip
        maya.write(vault, t)
        done: list[int] = []
        run = vault.dream(apply=True, force=True, on_chunk=done.append)
        assert run.applied and run.applied.applied > 0
        assert done and done == sorted(done) and done[-1] >= 1
