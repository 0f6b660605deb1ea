"""The daily snapshot, the diary page (issue 15, item 3): stable when recomputed, written by
the dream and the nightly check, never pruned by the dream, read by the profile's windows,
kept only as long as its retention; bad dates change nothing."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from memvault import FixedClock, MemVault
from memvault.cli.main import app
from memvault.embed import HashingEmbedder
from memvault.errors import InvalidInputError
from memvault.jobs import InProcessJobs, diary_check
from memvault.kg.store import Batch, Doc
from memvault.profile.diary import DIARY, compute
from memvault.profile.recall_log import LOG
from tests.http import ADMIN, SECRET, serving

NOW = datetime(2026, 3, 10, 21, tzinfo=UTC)
DAY = timedelta(days=1)


def open_vault(path: Path, **kw: Any) -> MemVault:
    return MemVault.open(path, embedder=HashingEmbedder(), clock=FixedClock(NOW), **kw)


def _history(vault: MemVault) -> None:
    """Three days: Berlin and Tobias, then Lisbon and Ana, then Ana alone; questions asked."""
    days = [
        (3, ["I met Tobias at the Berlin office.", "Tobias and I planned the Berlin offsite."]),
        (2, ["I talked to Ana about the Lisbon flat.", "Ana found a flat near Lisbon harbour."]),
        (1, ["Ana sent the contract.", "Ana and I signed it."]),
    ]
    for back, texts in days:
        for i, text in enumerate(texts):
            vault.write(text, speaker="Maya", now=NOW - back * DAY + i * timedelta(hours=1))
    vault.recall("Where is the Lisbon flat?", now=NOW - 2 * DAY + timedelta(hours=1))
    vault.recall("Who is Ana?", now=NOW - 2 * DAY + timedelta(hours=2))


def test_a_page_is_stable_when_recomputed_and_says_what_changed(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db") as vault:
        _history(vault)
        day = (NOW - 2 * DAY).date()
        page = vault.diary(date=day.isoformat())
        assert page["snapshot"] == "computed now (none stored)"
        assert page["counts"] == {"episodes": 2, "facts": page["counts"]["facts"], "recalls": 2}
        assert {e["name"] for e in page["entities"]} >= {"Ana", "Lisbon"}
        assert page["delta"]["appeared"] and "Ana" in page["delta"]["appeared"]
        assert "Tobias" in page["delta"]["disappeared"]
        assert {i["intent"] for i in page["intents"]} == {"where", "who"}
        again = compute(vault.store, "default", day, vault.settings.profile.top)
        assert {k: v for k, v in page.items() if k != "snapshot"} == again


def test_the_dream_and_the_nightly_check_write_snapshots_the_dream_never_prunes(
    tmp_path: Path,
) -> None:
    aggressive = {"hygiene": {"ttl_days": 0.5, "ttl_turns": 1, "cull_floor": 0.95}}
    with open_vault(tmp_path / "v.db", dream=aggressive) as vault:
        _history(vault)
        yesterday, today = (NOW - DAY).date().isoformat(), NOW.date().isoformat()
        assert diary_check(vault.c, skip=[]) == ["default"]
        stored = {d.id: d for d in vault.store.list_docs("default", DIARY)}
        assert stored[yesterday].status == "complete" and stored[today].status == "partial"
        before = vault.diary(date=yesterday)
        assert before["snapshot"] == "complete"
        vault.dream(apply=True, force=True, now=NOW + timedelta(minutes=5))
        after = vault.diary(date=yesterday)
        assert after == before  # the dream's pruning does not touch snapshots
        assert vault.diary(date=today)["snapshot"] == "partial"  # rewritten by the dream


def test_the_profile_windows_read_complete_snapshots(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db") as vault:
        _history(vault)
        computed = vault.profile()
        for back in (3, 2, 1):
            vault.write_diary(now=NOW - (back - 1) * DAY)
        assert vault.profile() == computed  # the same numbers from snapshots
        # a snapshot is what the window reads for its day (planted to show it)
        day = (NOW - 3 * DAY).date().isoformat()
        (doc,) = vault.store.get_docs("default", DIARY, [day])
        planted = doc.body | {"mentions": {"Zanzibar": 9}}
        vault.store.apply(Batch(namespace="default", docs=[Doc(DIARY, day, planted,
                                status="complete")], quiet=True))  # fmt: skip
        names = [n for n, _ in vault.profile()["windows"]["7"]["entities"]]
        assert names[0] == "Zanzibar" and "Tobias" not in names


def test_retention_drops_old_snapshots_and_log_entries_only(tmp_path: Path) -> None:
    settings = {"diary_retention_days": 2, "log_retention_days": 1}
    with open_vault(tmp_path / "v.db", profile=settings) as vault:
        _history(vault)
        for back in (3, 2, 1, 0):
            vault.write_diary(now=NOW - back * DAY)
        days = sorted(d.id for d in vault.store.list_docs("default", DIARY))
        assert days == [(NOW - n * DAY).date().isoformat() for n in (2, 1, 0)]
        assert vault.store.list_docs("default", LOG) == []  # both asked two days ago
        assert vault.recall("Who is Ana?").recall_id  # a new entry is kept
        vault.write_diary()
        assert len(vault.store.list_docs("default", LOG)) == 1


@pytest.mark.parametrize("bad", ["2026/03/08", "yesterday", "2026-13-01", "2099-03-11"])
def test_a_bad_or_future_date_is_refused_everywhere_and_changes_nothing(
    tmp_path: Path, bad: str
) -> None:
    path = tmp_path / "v.db"
    with open_vault(path) as vault:
        _history(vault)
        mark = vault.store.watermark("default")
        with pytest.raises(InvalidInputError):
            vault.diary(date=bad)
        assert vault.store.list_docs("default", DIARY) == []
        assert vault.store.watermark("default") == mark
    env = {"MEMVAULT_DB_PATH": str(path), "MEMVAULT_EMBEDDER": "hashing"}
    result = CliRunner().invoke(app, ["diary", "--date", bad], env=env)
    assert result.exit_code == 2 and "date" in result.output


def test_the_command_and_the_route(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with open_vault(path) as vault:
        _history(vault)
    env = {"MEMVAULT_DB_PATH": str(path), "MEMVAULT_EMBEDDER": "hashing"}
    day = (NOW - 2 * DAY).date().isoformat()
    text = CliRunner().invoke(app, ["diary", "--date", day], env=env)
    assert text.exit_code == 0 and "on your mind:" in text.stdout and "Ana" in text.stdout
    page = json.loads(CliRunner().invoke(app, ["diary", "--date", day, "--json"], env=env).stdout)
    assert page["date"] == day and date.fromisoformat(page["date"])
    from api.app import create_app

    with (
        open_vault(path, secret_key=SECRET, server={"admin_key": ADMIN}) as vault,
        serving(create_app(vault, InProcessJobs(vault.c))) as url,
        httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ADMIN}"}) as client,
    ):
        ok = client.get("/v1/ns/default/diary", params={"date": day})
        bad = client.get("/v1/ns/default/diary", params={"date": "03/08/2026"})
    assert ok.status_code == 200 and ok.json()["date"] == day
    assert bad.status_code == 422 and "date" in json.dumps(bad.json())


def test_the_profile_windows_name_topics_from_the_last_dreams_communities(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db") as vault:
        _history(vault)
        assert all(w["topics"] == [] for w in vault.profile()["windows"].values())  # no dream
        vault.dream(apply=True, force=True)
        topics = dict(vault.profile()["windows"]["7"]["topics"])
        assert topics, "the dream's communities give the window its topics"
        entities = dict(vault.profile()["windows"]["7"]["entities"])
        # a topic's attention is the sum of its members' (each entity in one community)
        assert sum(topics.values()) <= sum(entities.values())
        assert any("Ana" in label or "Tobias" in label for label in topics)


def test_a_configured_model_labels_intents_off_the_request_path(tmp_path: Path) -> None:
    """At recall time the rule labels the intent (no model call on the request path); the
    diary's background step asks the configured model, and its label is kept only when it
    is one of the known ones."""
    from memvault.llm import LiteLLMProvider
    from memvault.profile.recall_log import relabel

    with open_vault(tmp_path / "v.db") as vault:
        _history(vault)  # "Where is the Lisbon flat?" (where), "Who is Ana?" (who)
        logs = sorted(vault.store.list_docs("default", LOG), key=lambda d: d.created_at)
        assert [d.body["intent"] for d in logs] == ["where", "who"]
        answer = {"labels": [{"id": "q0", "intent": "lookup"}, {"id": "q1", "intent": "gossip"}]}
        llm = LiteLLMProvider("gpt-4o-mini", mock_response=json.dumps(answer))
        since = NOW - 3 * DAY
        out = relabel(vault.store, "default", llm, since)
        assert out["model_calls"] == 1
        by_query = {d.body["query"]: d.body for d in vault.store.list_docs("default", LOG)}
        newest_first = [d.body["query"] for d in vault.store.list_docs("default", LOG)]
        first = by_query[newest_first[0]]  # q0 is the newest (the log lists newest first)
        assert first["intent"] == "lookup" and first["intent_by"] == "model"
        second = by_query[newest_first[1]]  # "gossip" is not a label: the rule's stays
        assert second["intent"] in {"where", "who"} and second.get("intent_by") != "model"
        assert relabel(vault.store, "default", vault.c.llm, since)["model_calls"] == 0  # offline


def test_the_words_a_question_opens_with_are_no_names_in_the_profile(tmp_path: Path) -> None:
    """ "Can you suggest a stretching routine? My knees hurt" counted "Can" and "My" among
    the names asked after, above the people the questions were about."""
    with open_vault(tmp_path / "v.db") as vault:
        vault.write("I met Tobias at the Berlin office.", speaker="Maya", now=NOW - DAY)
        for q in ("Can you suggest a stretching routine? My knees hurt.", "Any news of Tobias?"):
            vault.recall(q, now=NOW - DAY + timedelta(hours=1))
        page = vault.diary(date=(NOW - DAY).date().isoformat(), now=NOW)
        assert set(page["asked"]) == {"Tobias"}, page["asked"]
        names = [n for n, _ in vault.profile(now=NOW)["windows"]["7"]["entities"]]
        assert "Can" not in names and "My" not in names and "Tobias" in names
