"""The operator console's review page with ``--items`` queued changes (1,000): time to first
render in Debian's headless Chromium (Playwright's navigation timing) and the page's weight,
beside the same page with 10 items in the same run.

    .venv/bin/python bench/console.py [--items 1000]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import uvicorn
from playwright.sync_api import sync_playwright

from api.app import create_app
from memvault import FixedClock, MemVault
from memvault.changes.docs import review_doc
from memvault.changes.plan import Change, Reason
from memvault.devservers import free_port
from memvault.embed import HashingEmbedder
from memvault.jobs import InProcessJobs
from memvault.kg.store import Batch

ADMIN = "bench-admin-Zq7wX2pL9vK4mN8rT1yB6cH3jF5dG0sA"
SECRET = "bench-secret-Hb4Jk8Lm2Np6Qr0St3Uv7Wx1Yz5Ac9Ef"
NOW = datetime(2026, 3, 1, tzinfo=UTC)
FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]  # fmt: skip


def queue(vault: MemVault, ns: str, n: int) -> None:
    docs = []
    for i in range(n):
        before = {"id": f"f{i}", "statement": f"Maya lives in City {i}", "confidence": 0.7}
        after = {**before, "invalid_at": NOW.isoformat()}
        change = Change(
            kind="fact",
            target_id=f"f{i}",
            before=before,
            after=after,
            reasons=[
                Reason(op="consolidate.supersede", why=f"City {i + 1} is newer", confidence=0.6)
            ],
        )
        why = [{"code": "low_confidence", "text": "confidence 0.60 ≤ 0.8"}]
        docs.append(review_doc(f"r{i:05d}", "dr_bench", why, [change], NOW, 7.0))
    vault.store.apply(Batch(namespace=ns, docs=docs))


def measure(url: str, ns: str, chromium: str) -> dict[str, Any]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS)
        page = browser.new_page()
        page.goto(f"{url}/console/login")
        page.fill("input[name=key]", ADMIN)
        page.click("text=log in")
        times = []
        for _ in range(5):
            started = time.perf_counter()
            response = page.goto(f"{url}/console/ns/{ns}/review")
            page.wait_for_selector("tr.item")
            times.append(time.perf_counter() - started)
            body = response.body() if response else b""
        timing = page.evaluate("JSON.stringify(performance.getEntriesByType('navigation')[0])")
        nav = json.loads(timing)
        rows = page.locator("tr.item").count()
        browser.close()
    return {
        "rows": rows,
        "first_render_ms_median": round(sorted(times)[2] * 1000, 1),
        "dom_content_loaded_ms": round(nav["domContentLoadedEventEnd"], 1),
        "page_bytes": len(body),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=1000)
    args = ap.parse_args()
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with tempfile.TemporaryDirectory() as tmp:
        vault = MemVault.open(Path(tmp) / "v.db", embedder=HashingEmbedder(), clock=FixedClock(NOW),
                              secret_key=SECRET, server={"admin_key": ADMIN})  # fmt: skip
        vault.write("a memory", namespace="big")
        vault.write("a memory", namespace="small")
        queue(vault, "big", args.items)
        queue(vault, "small", 10)
        port = free_port()
        server = uvicorn.Server(uvicorn.Config(create_app(vault, InProcessJobs(vault.c)),
                                               port=port, log_level="warning"))  # fmt: skip
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        url = f"http://127.0.0.1:{port}"
        out = {"items": args.items, "big": measure(url, "big", chromium),
               "small": measure(url, "small", chromium)}  # fmt: skip
        server.should_exit = True
        thread.join(10)
        vault.close()
    json.dump(out, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
