"""The API's own description works with no network: /docs and /redoc load their scripts and
styles from this server (fastapi-offline's copies), never from a CDN."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from api.app import create_app
from memvault import MemVault
from memvault.embed import HashingEmbedder
from memvault.jobs import InProcessJobs
from tests.http import ADMIN, SECRET, serving


def test_docs_pages_reference_no_other_host_and_their_assets_load(tmp_path: Path) -> None:
    vault = MemVault.open(
        tmp_path / "api.db",
        embedder=HashingEmbedder(),
        secret_key=SECRET,
        server={"admin_key": ADMIN},
    )
    with serving(create_app(vault, InProcessJobs(vault.c))) as url, httpx.Client() as c:
        for page in ("/docs", "/redoc"):
            html = c.get(f"{url}{page}")
            assert html.status_code == 200 and "text/html" in html.headers["content-type"]
            refs = re.findall(r'(?:src|href)="([^"]+)"', html.text)
            assert refs, page
            assert all(r.startswith("/") and not r.startswith("//") for r in refs), refs
            assert "cdn" not in html.text.lower()
            for ref in refs:
                asset = c.get(f"{url}{ref}")
                assert asset.status_code == 200 and len(asset.content) > 0, ref
        assert c.get(f"{url}/openapi.json").json()["info"]["title"] == "memvault"
    vault.close()
