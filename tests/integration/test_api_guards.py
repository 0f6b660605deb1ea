"""What the REST API refuses and how (over real HTTP on a real SQLite vault): dates at the
edge of time, bodies over the limit, guessed keys and login forms (throttled), weak secrets,
forged console posts, hostile query values; and the metrics only an admin key reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from api.app import create_app
from memvault import MemVault
from memvault.embed import HashingEmbedder
from memvault.jobs import InProcessJobs
from tests.http import ADMIN, SECRET
from tests.integration.conftest import Server, turns

EDGE_DATES = ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"]


@pytest.mark.parametrize("edge", EDGE_DATES)
def test_dates_at_the_edge_of_time_are_422_naming_the_field(server: Server, edge: str) -> None:
    key = server.key("maya")
    with server.client(key) as c:
        before = c.get("/v1/ns/maya/stats").json()
        r = c.post("/v1/ns/maya/episodes", json={"items": [{"content": "x", "occurred_at": edge}]})
        assert r.status_code == 422 and r.json()["error"]["field"] == "items.0.occurred_at"
        assert "0100-01-01 and 8999-12-31" in r.json()["error"]["message"]
        fact = {"subject": "A", "predicate": "likes", "object": "b", "valid_at": edge}
        r = c.post("/v1/ns/maya/facts", json={"items": [fact]})
        assert r.status_code == 422 and r.json()["error"]["field"] == "items.0.valid_at"
        r = c.get("/v1/ns/maya/facts", params={"as_of": edge})
        assert r.status_code == 422 and r.json()["error"]["field"] == "as_of"
        r = c.post("/v1/ns/maya/recall", json={"query": "x", "as_of": edge})
        assert r.status_code == 422 and r.json()["error"]["field"] == "as_of"
        assert c.get("/v1/ns/maya/stats").json() == before  # nothing stored


def test_a_streamed_body_over_the_limit_is_413(server: Server) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"items": [{"content": "'
        for _ in range(100):
            yield b"x" * 1000
        yield b'"}]}'

    key = server.key("maya")
    with server.client(key) as c:
        r = c.post(
            "/v1/ns/maya/episodes", content=chunks(), headers={"content-type": "application/json"}
        )
        assert r.status_code == 413 and r.json()["error"]["type"] == "too_large"
        small = iter([b'{"items": [{"content": "I live in Porto."}]}'])
        r = c.post(
            "/v1/ns/maya/episodes", content=small, headers={"content-type": "application/json"}
        )
        assert r.status_code == 201  # a streamed body under the limit still gets through


def test_guessing_keys_is_throttled_and_the_right_key_still_works(server: Server) -> None:
    key = server.key("maya")
    with server.client(key) as good:
        assert good.get("/v1/ns/maya/stats").status_code == 200
    statuses = []
    for i in range(20):
        with server.client(f"mvk_guess{i}_wrong") as bad:
            r = bad.get("/v1/namespaces")
            statuses.append(r.status_code)
            if r.status_code == 429:
                assert int(r.headers["Retry-After"]) >= 1
                assert r.json()["error"]["type"] == "too_many_requests"
    assert statuses[:10] == [401] * 10
    assert statuses[10:] == [429] * 10  # blocked before the key is even checked
    with server.client(key) as good:  # a key that already worked from here is not locked out
        assert good.get("/v1/ns/maya/stats").status_code == 200


@pytest.mark.parametrize(
    ("secret", "admin", "complaint"),
    [
        ("change-me", ADMIN, "MEMVAULT_SECRET_KEY is a well-known default"),
        ("", ADMIN, "MEMVAULT_SECRET_KEY is empty"),
        (SECRET, "x", "MEMVAULT_SERVER__ADMIN_KEY is 1 characters"),
        (SECRET, "a" * 40, "MEMVAULT_SERVER__ADMIN_KEY looks predictable"),
        (SECRET, SECRET, "must differ"),
    ],
)
def test_weak_secrets_refuse_to_serve(
    tmp_path: Path, secret: str, admin: str, complaint: str
) -> None:
    from memvault.errors import ConfigError

    vault = MemVault.open(
        tmp_path / "weak.db",
        embedder=HashingEmbedder(),
        secret_key=secret,
        server={"admin_key": admin},
    )
    with pytest.raises(ConfigError, match=complaint) as caught:
        create_app(vault, InProcessJobs(vault.c))
    assert "secrets.token_urlsafe(32)" in str(caught.value)
    vault.close()


def _sample(text: str, name: str, **labels: str) -> float:
    """The value of one Prometheus sample, 0 when absent."""
    for line in text.splitlines():
        if line.startswith(name) and all(f'{k}="{v}"' in line for k, v in labels.items()):
            head = line.split(" ")[0]
            if head == name or head.startswith(name + "{"):
                return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_count_requests_by_route_and_need_the_admin_key(server: Server) -> None:
    maya_key = server.key("maya")
    with server.client(maya_key) as c:
        c.post("/v1/ns/maya/episodes", json={"items": turns()})
        for _ in range(3):
            assert c.post("/v1/ns/maya/recall", json={"query": "Berlin"}).status_code == 200
        c.post("/v1/ns/maya/dream", json={"force": True})  # a dry run: nothing recorded
        assert c.get("/metrics").status_code == 403  # a namespace key cannot read them
    with server.client(None) as anon:
        assert anon.get("/metrics").status_code == 401
    server.vault.dream(namespace="maya", apply=True, force=True)
    with server.client() as admin:
        r = admin.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    text = r.text
    route = "/v1/ns/{namespace}/recall"
    assert _sample(text, "memvault_http_requests_total", route=route, status="200") == 3
    assert _sample(text, "memvault_http_request_seconds_count", route=route) == 3
    assert _sample(text, "memvault_recall_seconds_count") == 3
    assert "maya" not in text  # a namespace never becomes a label
    assert _sample(text, "memvault_dream_runs", status="applied") == 1
    assert _sample(text, "memvault_dream_changes", op="consolidate.supersede") >= 1
    assert "memvault_review_pending" in text and "memvault_llm_calls" in text
    assert 'memvault_jobs_queued{kind="dream"} 0.0' in text
    assert 'memvault_jobs_queued{kind="prefetch"}' in text


def test_console_login_is_throttled_like_the_api(server: Server) -> None:
    """Guessing the operator key through the login form meets the same brake as the API (10
    failures in a minute, the default): then 429 with Retry-After, the key not even checked."""
    with httpx.Client(base_url=server.url, timeout=30) as browser:
        codes = [
            browser.post("/console/login", data={"key": f"guess-{i}"}).status_code
            for i in range(11)
        ]
        assert codes[:10] == [303] * 10 and codes[10] == 429
        blocked = browser.post("/console/login", data={"key": ADMIN})  # even the right key waits
        assert blocked.status_code == 429 and int(blocked.headers["Retry-After"]) > 0
        assert "too many failed" in blocked.text


def test_console_logout_needs_the_forms_csrf_token(server: Server) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as browser:
        assert browser.post("/console/login", data={"key": ADMIN}).status_code == 303
        page = browser.get("/console").text
        assert browser.post("/console/logout").status_code == 403  # a forged cross-site post
        assert browser.get("/console").status_code == 200  # still logged in
        token = page.split('action="/console/logout"', 1)[1].split('value="', 1)[1].split('"')[0]
        out = browser.post("/console/logout", data={"csrf": token})
        assert out.status_code == 303 and out.headers["location"] == "/console/login"


def test_hostile_query_values_get_4xx_with_a_json_body(server: Server) -> None:
    with server.client() as c:
        c.post("/v1/ns/maya/episodes", json={"items": [{"content": "I live in Porto."}]})
        for params in ({"subject": "   "}, {"predicate": "\t"}):
            r = c.get("/v1/ns/maya/facts", params=params)
            assert r.status_code == 422 and r.json()["error"]["field"] in params, r.text
        r = c.get("/v1/ns/maya/diary", params={"date": "0001-01-01"})
        assert r.status_code == 422 and "range" in r.json()["error"]["message"]


def test_console_pages_escape_what_memories_say(server: Server) -> None:
    """The console's templates escape every value: markup written into a memory, its speaker,
    a search or a login error is shown as text, never run; confirmations stay valid script."""
    hostile = '<script>alert(1)</script> it\'s "quoted" & <img src=x onerror=alert(2)>'
    server.vault.write(hostile, namespace="maya", speaker="<b>Eve</b>")
    episode = server.vault.episodes(namespace="maya", limit=10)[-1]
    with httpx.Client(base_url=server.url, timeout=30) as browser:
        assert browser.post("/console/login", data={"key": ADMIN}).status_code == 303
        pages = [
            browser.get("/console/ns/maya/memories", params={"q": "<script>"}).text,
            browser.get(f"/console/ns/maya/memories/{episode.id}").text,
            browser.get("/console/login", params={"error": "<i>x</i>"}).text,
        ]
    for page in pages:
        assert "<script>" not in page and "<img" not in page and "<i>x" not in page
    listing, detail, login = pages
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in listing and "&lt;b&gt;Eve" in listing
    assert 'value="&lt;script&gt;' in listing  # the search box keeps the query as text
    assert "it&#39;s &#34;quoted&#34; &amp; &lt;img" in detail
    assert "&lt;i&gt;x&lt;/i&gt;" in login
    # the forget confirmation is a JSON string inside a single-quoted attribute
    assert "onsubmit='return confirm(\"Forget this memory for good?" in detail
