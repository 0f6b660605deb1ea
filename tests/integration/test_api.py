"""The REST API over real HTTP (uvicorn on a free port) on a real SQLite vault: keys scoped
to namespaces, writing, recall, feedback, the dream as a job, review, inbox, pagination, and
what bad input gets."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx

from tests.integration.conftest import Server, T, turns


def test_keys_scope_namespaces_and_reveal_nothing_of_others(server: Server) -> None:
    with server.client(None) as anon:
        r = anon.post("/v1/ns/alice/recall", json={"query": "hi"})
        assert r.status_code == 401 and r.json()["error"]["type"] == "unauthorized"
        assert "Bearer" in r.json()["error"]["message"]
    with server.client("mvk_nope_nope") as bad:
        assert bad.get("/v1/namespaces").status_code == 401
    alice = server.key("alice")
    with server.client(alice) as c:
        assert c.post("/v1/ns/alice/episodes", json={"items": turns()}).status_code == 201
        other = c.post("/v1/ns/bob/recall", json={"query": "Berlin"})
        absent = c.post("/v1/ns/nobody/recall", json={"query": "Berlin"})
        assert other.status_code == absent.status_code == 404
        assert other.json()["error"]["message"].replace("bob", "X") == absent.json()["error"][
            "message"
        ].replace("nobody", "X")
        assert c.post("/v1/keys", json={"name": "x", "admin": True}).status_code == 403
        assert [n["namespace"] for n in c.get("/v1/namespaces").json()["namespaces"]] == ["alice"]
    with server.client() as admin:
        listed = admin.get("/v1/keys").json()["keys"]
        assert all("digest" not in k for k in listed)  # only the HMAC is stored, never shown
        (record,) = [k for k in listed if k["namespaces"] == ["alice"]]
        assert admin.delete(f"/v1/keys/{record['id']}").json()["status"] == "revoked"
    with server.client(alice) as c:
        assert c.get("/v1/ns/alice/stats").status_code == 401  # revoked: at once


def test_write_recall_feedback_and_pages(server: Server) -> None:
    key = server.key("maya")
    with server.client(key) as c:
        w = c.post("/v1/ns/maya/sessions/s9/episodes", json={"items": [{"content": "Hello."}]})
        assert w.status_code == 201 and w.json()["created"] == 1
        w = c.post("/v1/ns/maya/episodes", json={"items": turns()})
        assert w.json()["created"] == 6 and w.json()["facts_created"] >= 2
        f = c.post(
            "/v1/ns/maya/facts",
            json={"items": [{"subject": "Maya", "predicate": "likes", "object": "tea"}]},
        )
        assert f.status_code == 201 and len(f.json()["fact_ids"]) == 1
        r = c.post("/v1/ns/maya/recall", json={"query": "where does Maya surf?", "explain": True})
        hits = r.json()["hits"]
        assert "Ericeira" in hits[0]["text"] and hits[0]["explanation_text"].startswith("score")
        past = c.post(
            "/v1/ns/maya/recall",
            json={"query": "Maya lives in", "as_of": (T + timedelta(days=10)).isoformat()},
        )
        assert past.status_code == 200
        fb = c.post("/v1/ns/maya/feedback", json={"ids": [hits[0]["id"]], "signal": "reinforce"})
        assert fb.json()["updated"] == 1
        missing = c.post("/v1/ns/maya/feedback", json={"ids": ["nope"], "signal": "up"})
        assert missing.status_code == 404 and "nope" in missing.json()["error"]["message"]
        first = c.get("/v1/ns/maya/episodes", params={"limit": 4}).json()
        second = c.get("/v1/ns/maya/episodes", params={"limit": 4, "offset": 4}).json()
        assert first["next_offset"] == 4 and second["next_offset"] is None
        ids = [e["id"] for e in first["items"] + second["items"]]
        assert len(ids) == len(set(ids)) == 7
        one = c.get(f"/v1/ns/maya/episodes/{ids[0]}")
        assert one.json()["id"] == ids[0]
        facts = c.get("/v1/ns/maya/facts", params={"subject": "Maya"}).json()["items"]
        assert {"lives_in", "likes"} <= {x["predicate"] for x in facts}


def test_bad_input_gets_a_json_error_that_names_what_to_fix(server: Server) -> None:
    key = server.key("maya")
    with server.client(key) as c:
        r = c.post("/v1/ns/maya/episodes", json={"items": [{"content": "x", "importance": 5}]})
        assert r.status_code == 422
        err = r.json()["error"]
        assert err["field"] == "items.0.importance" and "less than or equal" in err["message"]
        r = c.post("/v1/ns/maya/recall", json={"query": "x", "k": 0, "surprise": 1})
        fields = {d["field"] for d in r.json()["error"]["details"]}
        assert r.status_code == 422 and {"k", "surprise"} <= fields
        said = {d["field"]: d["message"] for d in r.json()["error"]["details"]}
        assert (
            said["surprise"].startswith("unknown field (the fields are ")
            and "query" in said["surprise"]
        )
        # another product's field names get the one memvault reads, inside a list too
        r = c.post(
            "/v1/ns/maya/episodes", json={"items": [{"text": "hi", "timestamp": "2025-01-01"}]}
        )
        said = {d["field"]: d["message"] for d in r.json()["error"]["details"]}
        assert r.status_code == 422
        assert said["items.0.text"] == "unknown field, did you mean 'content'?"
        assert said["items.0.timestamp"] == "unknown field, did you mean 'occurred_at'?"
        r = c.post(
            "/v1/ns/maya/episodes",
            content=b"{not json",
            headers={"content-type": "application/json"},
        )
        assert r.status_code == 422
        big = {"items": [{"content": "x" * 70_000}]}
        r = c.post("/v1/ns/maya/episodes", json=big)
        assert r.status_code == 413 and r.json()["error"]["type"] == "too_large"
        # found by schemathesis: a predicate of punctuation was stored and broke reads
        r = c.post(
            "/v1/ns/maya/facts",
            json={"items": [{"subject": "A", "predicate": "!!", "object": "b"}]},
        )
        assert r.status_code == 422 and r.json()["error"]["field"] == "items.0.predicate"
        late = {
            "subject": "A",
            "predicate": "p",
            "object": "b",
            "valid_at": "2025-02-01T00:00:00Z",
            "invalid_at": "2025-01-01T00:00:00Z",
        }
        r = c.post("/v1/ns/maya/facts", json={"items": [late]})
        assert r.status_code == 422 and "invalid_at must be after" in r.json()["error"]["message"]
        assert c.get("/v1/ns/bad%20name/stats").status_code == 422
        assert c.get("/v1/ns/maya/episodes", params={"limit": 100_000}).status_code == 422
        assert c.get("/v1/ns/maya/stats").json()["episodes"] == 0  # nothing half-written


def _wait(c: httpx.Client, path: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        body: dict[str, Any] = c.get(path).json()
        if body["status"] in ("done", "failed"):
            return body
        time.sleep(0.1)
    raise AssertionError(f"job at {path} did not finish")


def test_dream_job_runs_review_and_inbox(server: Server) -> None:
    key = server.key("maya")
    with server.client(key) as c:
        c.post("/v1/ns/maya/episodes", json={"items": turns()})
        dry = c.post("/v1/ns/maya/dream", json={})
        assert dry.status_code == 200 and dry.json()["status"] == "planned"
        assert dry.json()["changes"] > 0
        assert c.get("/v1/ns/maya/dream/runs").json()["items"] == []  # a dry run writes nothing
        queued = c.post("/v1/ns/maya/dream", json={"apply": True})
        assert queued.status_code == 202
        job = _wait(c, f"/v1/ns/maya/dream/jobs/{queued.json()['job_id']}")
        assert job["status"] == "done" and job["result"]["status"] == "applied"
        run_id = job["result"]["run_id"]
        (run,) = c.get("/v1/ns/maya/dream/runs").json()["items"]
        assert run["run_id"] == run_id
        report = c.get(f"/v1/ns/maya/dream/runs/{run_id}").json()
        assert report["counts"]
        lives = c.get("/v1/ns/maya/facts", params={"predicate": "lives_in"}).json()["items"]
        assert [f["object"] for f in lives] == ["Lisbon"]
        inbox = c.get("/v1/ns/maya/inbox", params={"status": "all"}).json()
        if inbox["items"]:
            seen = c.post("/v1/ns/maya/inbox/seen", json={"ids": [inbox["items"][0]["id"]]})
            assert seen.json()["marked"] == 1
        assert c.post("/v1/ns/maya/inbox/seen", json={"ids": ["nope"]}).status_code == 404
        assert c.post("/v1/ns/maya/review/nope/approve").status_code == 404
        undone = c.post(f"/v1/ns/maya/dream/runs/{run_id}/undo", json={})
        assert undone.status_code == 200 and undone.json()["restored"] > 0
        lives = c.get("/v1/ns/maya/facts", params={"predicate": "lives_in"}).json()["items"]
        assert sorted(f["object"] for f in lives) == ["Berlin", "Lisbon"]


def test_review_items_are_approved_and_rejected_over_http(server: Server) -> None:
    key = server.key("maya")
    with server.client(key) as c:
        priya = {
            "content": "My manager is Priya.",
            "speaker": "Maya",
            "session_id": "s2",
            "occurred_at": (T + timedelta(days=40)).isoformat(),
        }
        c.post("/v1/ns/maya/episodes", json={"items": [*turns(), priya]})
        queued = c.post("/v1/ns/maya/dream", json={"apply": True}).json()
        job = _wait(c, f"/v1/ns/maya/dream/jobs/{queued['job_id']}")
        assert job["status"] == "done"
        pending = c.get("/v1/ns/maya/review").json()["items"]
        assert pending, "two managers named at once go to review"
        linted = c.post("/v1/ns/maya/lint", json={"levels": ["structure", "grounding"]}).json()
        assert linted["levels"] == ["structure", "grounding"] and "counts" in linted
        bad = c.post("/v1/ns/maya/lint", json={"levels": ["vibes"]})
        assert bad.status_code == 422 and bad.json()["error"]["field"] == "levels.0"
        r = c.post(f"/v1/ns/maya/review/{pending[0]['id']}/reject", json={"note": "both wrong"})
        assert r.json()["status"] == "rejected"
        again = c.post(f"/v1/ns/maya/review/{pending[0]['id']}/approve")
        assert again.status_code == 422 and "already rejected" in again.json()["error"]["message"]


def test_openapi_documents_every_route(server: Server) -> None:
    with server.client(None) as c:
        spec = c.get("/openapi.json").json()
    paths = set(spec["paths"])
    assert {"/v1/ns/{namespace}/recall", "/v1/ns/{namespace}/dream", "/v1/keys"} <= paths
    schemes = spec["components"]["securitySchemes"]
    assert {"HTTPBearer", "APIKeyHeader"} <= set(schemes)  # both ways to send a key


def test_lint_reports_no_server_paths(server: Server, tmp_path: Path) -> None:
    key = server.key("maya")
    with server.client(key) as c:
        c.post("/v1/ns/maya/episodes", json={"items": turns()})
        r = c.post("/v1/ns/maya/lint", json={})
    assert r.status_code == 200
    assert r.json()["ontology"] == ["ontology.yaml"]
    assert "/" not in r.text.replace("</", "")


def test_fold_and_primer_over_http(server: Server) -> None:
    key = server.key("maya")
    with server.client(key) as c:
        c.post("/v1/ns/maya/episodes", json={"items": turns()})
        dry = c.post("/v1/ns/maya/fold", json={}).json()
        assert dry["applied"] is False and dry["types"]["episodic"]["new"] > 0
        done = c.post("/v1/ns/maya/fold", json={"apply": True}).json()
        assert done["types"]["episodic"]["calls"] >= 1
        again = c.post("/v1/ns/maya/fold", json={"apply": True}).json()
        assert all(v["calls"] == 0 for v in again["types"].values())
        block = c.get("/v1/ns/maya/primer", params={"budget": 100}).json()
        assert block["primer_tokens"] <= 100 and block["episodes_covered"] > 0
        assert "Berlin" in c.get("/v1/ns/maya/primer").json()["text"]
        bad = c.get("/v1/ns/maya/primer", params={"budget": 3})
        assert bad.status_code == 422 and "budget" in bad.text
        assert c.post("/v1/ns/maya/fold", json={"apply": "sometimes"}).status_code == 422
    with server.client(server.key("other")) as c:
        assert c.get("/v1/ns/maya/primer").status_code == 404  # another key: not even seen


def test_tiers_and_janitor_over_http(server: Server) -> None:
    with server.client(server.key("maya")) as c:
        c.post("/v1/ns/maya/episodes", json={"items": turns()})
        dry = c.post("/v1/ns/maya/tiers", json={}).json()
        assert dry["status"] == "planned" and dry["counts"][0]["tier"] == "hot"
        sweep = c.post("/v1/ns/maya/janitor", json={"apply": True}).json()
        assert sweep["status"] == "applied" and sweep["snapshot"]["totalRuns"] == 1
        stats = c.get("/v1/ns/maya/stats").json()
        assert stats["janitor"]["lastRunId"] == sweep["run_id"]
        bad = c.post("/v1/ns/maya/tiers", json={"apply": True, "everything": 1})
        assert bad.status_code == 422 and "everything" in bad.text


def test_verdicts_and_gaps_over_http(server: Server) -> None:
    with server.client(server.key("maya")) as c:
        c.post("/v1/ns/maya/episodes", json={"items": turns()})
        for query in ("Who is Maya's dentist?", "who is the dentist of maya"):
            out = c.post("/v1/ns/maya/recall", json={"query": query}).json()
            assert out["recall_id"] and out["hint"] is None
            r = c.post(
                "/v1/ns/maya/verdicts", json={"recall_id": out["recall_id"], "verdict": "incorrect"}
            )
            assert r.status_code == 200, r.text
        assert c.get("/v1/ns/maya/gaps").json()[0]["fail_count"] == 2
        hinted = c.post("/v1/ns/maya/recall", json={"query": "Who is Maya's dentist?"}).json()
        assert "failed before" in hinted["hint"]
        bad = c.post("/v1/ns/maya/verdicts", json={"recall_id": "x", "verdict": "meh"})
        assert bad.status_code == 422 and "verdict" in bad.text
        missing = c.post("/v1/ns/maya/verdicts", json={"recall_id": "x", "verdict": "correct"})
        assert missing.status_code == 404
