"""Review at scale: the queue is read a page at a time, and approved or rejected in bulk with
a filter (a reason, an op, the run that proposed it), a preview first; one stale item is
reported and never sinks the others. Through the SDK, REST + Client and the CLI."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from api.app import create_app
from memvault import Client, FixedClock, MemVault
from memvault.changes.plan import Change
from memvault.cli.main import app
from memvault.demo import demo_items
from memvault.embed import HashingEmbedder
from memvault.errors import InvalidInputError
from memvault.jobs import InProcessJobs
from tests.http import ADMIN, SECRET, serving

NOW = datetime(2026, 1, 1, tzinfo=UTC)
STRICT = {"consolidate": {"auto_approve_confidence": 0.99}}  # nearly every change waits


def queued(path: Path) -> tuple[MemVault, str]:
    vault = MemVault.open(
        path,
        embedder=HashingEmbedder(),
        clock=FixedClock(NOW),
        dream=STRICT,
        secret_key=SECRET,
        server={"admin_key": ADMIN},
    )
    for at, items in demo_items():
        vault.write_many(items, namespace="maya", now=at)
    run = vault.dream(namespace="maya", apply=True, force=True)
    return vault, run.run_id


def ops(item: dict[str, object]) -> set[str]:
    return {Change.model_validate(c).op for c in item["changes"]}  # type: ignore[attr-defined]


def test_bulk_decisions_preview_first_and_a_stale_item_does_not_sink_the_rest(
    tmp_path: Path,
) -> None:
    vault, run_id = queued(tmp_path / "v.db")
    pending = vault.review_items(namespace="maya", limit=1000)
    moves = [i for i in pending if ops(i) == {"tiers.move"}]
    assert len(pending) > len(moves) >= 3
    with pytest.raises(InvalidInputError, match="no filter"):
        vault.decide_reviews("approve", namespace="maya")
    with pytest.raises(InvalidInputError, match="approve or reject"):
        vault.decide_reviews("maybe", namespace="maya", every=True)

    preview = vault.decide_reviews("approve", namespace="maya", op="tiers.move")
    assert preview["dry_run"] and {m["id"] for m in preview["matched"]} == {i["id"] for i in moves}
    assert len(vault.review_items(namespace="maya", limit=1000)) == len(pending)  # nothing yet

    target = moves[0]["changes"][0]["target_id"]
    vault.record_access([target], namespace="maya")  # its episode changed: that item is stale
    done = vault.decide_reviews("approve", namespace="maya", op="tiers.move", dry_run=False)
    assert [f["id"] for f in done["failed"]] == [moves[0]["id"]]
    assert "no longer applies" in done["failed"][0]["error"]
    assert set(done["decided"]) == {i["id"] for i in moves[1:]}
    approved = {i["id"] for i in vault.review_items(namespace="maya", status="approved")}
    assert approved == set(done["decided"])

    rest = vault.decide_reviews(
        "reject", namespace="maya", run_id=run_id, dry_run=False, note="not now"
    )
    assert len(rest["decided"]) == len(pending) - len(moves) and not rest["failed"]
    assert vault.review_items(namespace="maya") == []
    rejected = vault.review_items(namespace="maya", status="rejected", limit=1000)
    assert {r["note"] for r in rejected} == {"not now"}
    vault.close()


def test_bulk_decisions_and_paging_over_rest_and_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    vault, run_id = queued(path)
    pending = vault.review_items(namespace="maya", limit=1000)
    api = create_app(vault, InProcessJobs(vault.c))
    with serving(api) as url, Client(url, api_key=ADMIN, namespace="maya") as client:
        listed = client.review_items(limit=1000)
        assert {i["id"] for i in listed} == {i["id"] for i in pending}
        preview = client.decide_reviews("reject", op="episode.replaced")
        assert preview["dry_run"] and len(preview["matched"]) >= 1
        assert len(client.review_items(limit=1000)) == len(pending)
        done = client.decide_reviews("reject", op="episode.replaced", dry_run=False)
        assert sorted(done["decided"]) == sorted(m["id"] for m in preview["matched"])
        with pytest.raises(InvalidInputError):
            client.decide_reviews("approve")  # no filter: a 422 with what to fix
    left = len(pending) - len(done["decided"])
    vault.close()

    env = {"MEMVAULT_DB_PATH": str(path), "MEMVAULT_EMBEDDER": "hashing"}
    runner = CliRunner()
    listing = ["review", "list", "-n", "maya", "--limit", "5", "--json", "--offset"]
    pages = [
        json.loads(runner.invoke(app, [*listing, str(o)], env=env).stdout)
        for o in range(0, left + 5, 5)
    ]
    seen = [i["id"] for page in pages for i in page]
    assert len(seen) == len(set(seen)) == left and all(len(p) <= 5 for p in pages)
    out = runner.invoke(app, ["review", "decide", "approve", "-n", "maya", "--all"], env=env)
    assert out.exit_code == 0 and f"would approve {left} item(s)" in out.stdout
    refused = runner.invoke(app, ["review", "decide", "approve", "-n", "maya"], env=env)
    assert refused.exit_code != 0 and "no filter" in refused.output
    out = runner.invoke(
        app, ["review", "decide", "reject", "-n", "maya", "--run", run_id, "--apply"], env=env
    )
    assert out.exit_code == 0 and f"rejected {left} item(s)" in out.stdout
