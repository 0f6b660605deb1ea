"""Fixtures of the integration tests: the REST API over real HTTP (uvicorn on a free port)
on a real SQLite vault."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from api.app import create_app
from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder
from memvault.embed.onnx import OnnxEmbedder
from memvault.jobs import InProcessJobs
from tests import maya
from tests.http import ADMIN, SECRET, serving

T = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="session")
def minilm(tmp_path_factory: pytest.TempPathFactory) -> OnnxEmbedder:
    """MiniLM (ONNX, from the installed package), loaded once for the tests that read meaning."""
    return OnnxEmbedder(tmp_path_factory.mktemp("models"))


@dataclass
class Server:
    url: str
    vault: MemVault

    def client(self, key: str | None = ADMIN) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def key(self, *namespaces: str, admin: bool = False) -> str:
        with self.client() as c:
            r = c.post(
                "/v1/keys", json={"name": "t", "namespaces": list(namespaces), "admin": admin}
            )
            assert r.status_code == 201, r.text
            return str(r.json()["key"])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    vault = MemVault.open(
        tmp_path / "api.db",
        embedder=HashingEmbedder(),
        clock=FixedClock(T + timedelta(days=200)),
        secret_key=SECRET,
        server={"admin_key": ADMIN, "max_body_bytes": 64_000},
    )
    with serving(create_app(vault, InProcessJobs(vault.c))) as url:
        yield Server(url, vault)
    vault.close()


def turns() -> list[dict[str, object]]:
    """Maya's small history, as the API tests write it."""
    return maya.items(T)
