"""The operator console in a real headless Chromium (Debian's, driven by Playwright): log in
with an operator key, approve a review item and see it applied, undo a run and see the facts
restored, see the graph render; a namespace key cannot open it. A failing test leaves a
screenshot in its tmp_path."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, sync_playwright

from api.app import create_app
from api.console_plots import fact_state
from memvault import FixedClock, MemVault
from memvault.demo import demo_items
from memvault.embed import HashingEmbedder
from memvault.jobs import InProcessJobs
from tests.http import ADMIN, SECRET, serving

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def console(tmp_path: Path) -> Iterator[dict[str, Any]]:
    vault = MemVault.open(
        tmp_path / "api.db",
        embedder=HashingEmbedder(),
        clock=FixedClock(datetime(2026, 1, 1, tzinfo=UTC)),
        secret_key=SECRET,
        server={"admin_key": ADMIN},
    )
    for at, items in demo_items():  # the demo's year of Maya: two managers named at once
        vault.write_many(items, namespace="maya", now=at)
    run = vault.dream(namespace="maya", apply=True, force=True)
    with serving(create_app(vault, InProcessJobs(vault.c))) as url:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ADMIN}"}) as c:
            ns_key = c.post("/v1/keys", json={"name": "ns", "namespaces": ["maya"]}).json()
        yield {"url": url, "vault": vault, "run_id": run.run_id, "ns_key": ns_key["key"]}
    vault.close()


@pytest.fixture
def page(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Page]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        tab = browser.new_page()
        yield tab
        failed = getattr(request.node, "rep_call", None)
        if failed is not None and failed.failed:
            tab.screenshot(path=str(tmp_path / "failure.png"), full_page=True)
        browser.close()


def login(page: Page, url: str, key: str) -> None:
    page.goto(f"{url}/console")
    assert "/console/login" in page.url  # no session: the login page first
    page.fill("input[name=key]", key)
    page.click("text=log in")


def test_an_operator_approves_an_item_and_undoes_a_run(console: dict[str, Any], page: Page) -> None:
    url, vault = console["url"], console["vault"]
    login(page, url, ADMIN)
    assert page.locator("text=namespaces").first.is_visible()
    page.click("text=maya")
    items = page.locator("tr.item")
    assert items.count() == 1  # two managers named at once: a human decides
    item_id = items.first.get_attribute("data-id")
    items.first.locator("button:has-text('approve')").click()
    assert "approved" in page.locator("#flash").inner_text()
    assert page.locator("tr.item").count() == 0
    assert vault.review_items(namespace="maya", status="approved")[0]["id"] == item_id
    managers = {f.object for f in vault.facts(namespace="maya", predicate="manager")}
    assert len(managers) == 1  # the approved supersede applied

    page.goto(f"{url}/console/ns/maya/runs/{console['run_id']}")
    assert "consolidate.supersede" in page.content()
    page.once("dialog", lambda dialog: dialog.accept())  # the confirm() before undo
    page.click("text=undo this run")
    assert "undone" in page.locator("#flash").inner_text()
    lives = {f.object for f in vault.facts(namespace="maya", predicate="lives_in")}
    assert lives == {"Berlin", "Lisbon"}  # the superseded city is current again

    page.goto(f"{url}/console/ns/maya/graph")
    assert page.locator("#graph g.node").count() >= 3
    assert page.locator("#graph line").count() >= 1

    page.goto(f"{url}/console/ns/maya/persona")
    assert "attitudes" in page.content()


def test_an_operator_finds_a_memory_and_forgets_it(console: dict[str, Any], page: Page) -> None:
    url, vault = console["url"], console["vault"]
    target = next(e for e in vault.episodes(namespace="maya", limit=1000) if "Lisbon" in e.content)
    login(page, url, ADMIN)
    page.goto(f"{url}/console/ns/maya/memories")
    page.fill("input[name=q]", "lisbon")
    page.click("text=search")
    rows = page.locator("tr", has_text=target.content[:40])
    assert rows.count() == 1
    page.once("dialog", lambda dialog: dialog.dismiss())  # the confirm(), declined
    rows.first.locator("button:has-text('forget')").click()
    assert vault.get_episode(target.id, namespace="maya")  # nothing happened
    page.once("dialog", lambda dialog: dialog.accept())
    rows.first.locator("button:has-text('forget')").click()
    assert "forgotten" in page.locator("#flash").inner_text()
    assert target.id not in {e.id for e in vault.episodes(namespace="maya", limit=1000)}
    assert target.content[:40] not in page.content()


def test_a_namespace_key_cannot_open_the_console(console: dict[str, Any], page: Page) -> None:
    login(page, console["url"], console["ns_key"])
    assert "cannot open the console" in page.content()
    page.goto(f"{console['url']}/console/ns/maya/review")
    assert "/console/login" in page.url  # still no session
    forged = httpx.post(
        f"{console['url']}/console/ns/maya/runs/{console['run_id']}/undo",
        data={"csrf": "x"},
        cookies={"mv_console": "admin.9999999999.forged"},
        follow_redirects=False,
    )
    assert forged.status_code == 303 and forged.headers["location"] == "/console/login"


def test_an_operator_reads_a_memory_s_history_and_corrects_it(
    console: dict[str, Any], page: Page
) -> None:
    url, vault = console["url"], console["vault"]
    episodes = vault.episodes(namespace="maya", limit=1000)
    tobias = next(e for e in episodes if "Tobias" in e.content)
    lena = next(e for e in episodes if "Hamburg" in e.content)
    login(page, url, ADMIN)
    page.goto(f"{url}/console/ns/maya/memories")
    months = {e.occurred_at.strftime("%Y-%m") for e in episodes if e.expired_at is None}
    drawn_months = page.locator("svg.tiers-by-month g.month")
    assert {m.get_attribute("data-month") for m in drawn_months.all()} == months
    page.fill("input[name=q]", "tobias")
    page.click("text=search")
    page.locator("tr.memory a", has_text="Tobias").click()
    assert page.locator("#text").inner_text() == tobias.content
    # the timeline draws every fact drawn from it, in the state the vault holds it
    now = vault.now()
    expected = {
        f.id: fact_state(f, now)
        for f in vault.facts(namespace="maya", include_history=True, limit=10_000)
        if tobias.id in f.source_episode_ids
    }
    drawn = {
        g.get_attribute("data-id"): (g.get_attribute("class") or "").split()[-1]
        for g in page.locator("svg.timeline g.fact").all()
    }
    assert drawn == expected and "ended" in drawn.values()  # the dream superseded Tobias
    page.locator("a[href*='/entities/']", has_text="Tobias").first.click()
    assert page.locator("svg.timeline g.fact").count() >= 1
    assert "Maya" in page.locator("#neighbours").inner_text()
    page.goto(f"{url}/console/ns/maya/entities/Maya")
    edges = page.locator("svg.ego g.edge")
    assert edges.count() >= 3 and page.locator("svg.ego g.edge.ended").count() >= 1

    # a correction without the session's token changes nothing
    stale = page.request.post(
        f"{url}/console/ns/maya/memories/{lena.id}/correct", form={"text": "x", "csrf": "no"}
    )
    assert stale.status == 403 and vault.get_episode(lena.id, namespace="maya").expired_at is None
    page.goto(f"{url}/console/ns/maya/memories/{lena.id}")
    page.fill("textarea[name=text]", "My sister Lena visits from Bremen next month.")
    page.once("dialog", lambda dialog: dialog.accept())  # the confirm() before saving
    page.click("text=save the correction")
    assert "corrected" in page.locator("#flash").inner_text()
    assert "Bremen" in page.locator("#text").inner_text()
    versions = page.locator("#versions")
    assert "corrects" in versions.inner_text() and "Hamburg" in versions.inner_text()
    versions.locator("a").first.click()  # the old version: retired, kept, pointing forward
    assert "corrected by" in page.locator("#versions").inner_text()
    assert vault.get_episode(lena.id, namespace="maya").expired_at is not None
    assert page.locator("text=save the correction").count() == 0  # a retired one is history
    page.goto(f"{url}/console/ns/maya/memories?q=hamburg&retired=1")
    assert "retired" in page.locator("tr.memory").first.inner_text()


def test_the_persona_page_plots_the_interest_windows(console: dict[str, Any], page: Page) -> None:
    url, vault = console["url"], console["vault"]
    login(page, url, ADMIN)
    page.goto(f"{url}/console/ns/maya/persona")
    windows = vault.profile(namespace="maya")["windows"]
    assert page.locator("div.window").count() == len(windows) == 3
    for days, w in windows.items():
        bars = page.locator(f"div.window[data-days='{days}'] g.bar")
        assert [b.get_attribute("data-label") for b in bars.all()] == [n for n, _ in w["entities"]]
    assert page.locator("div.window[data-days='90'] g.bar").count() >= 1
