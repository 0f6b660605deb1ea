"""Prefetch, the slow thinker (issue 15, item 7): a session's predicted questions are warmed;
a recall that asks one (in other words with the same signature) is served from the cache with
the same hits, says so, and any write to the namespace invalidates it; the server queues the
work after a session's writes, off the request path."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder
from memvault.errors import InvalidInputError
from memvault.jobs import InProcessJobs
from tests.http import ADMIN, SECRET, serving

NOW = datetime(2026, 3, 10, 12, tzinfo=UTC)


def open_vault(path: Path, **kw: Any) -> MemVault:
    return MemVault.open(path, embedder=HashingEmbedder(), clock=FixedClock(NOW), **kw)


def _seed(vault: MemVault) -> None:
    earlier = NOW - timedelta(days=3)
    vault.write("Tobias lives in Hamburg and runs the platform guild.", speaker="Maya",
                session_id="s0", now=earlier)  # fmt: skip
    vault.write("Lena lives in Porto, near the river.", speaker="Maya", session_id="s0",
                now=earlier)  # fmt: skip
    vault.recall("Where does Tobias live?", now=earlier)  # a question shape of this namespace
    vault.recall("Where does Tobias live?", now=earlier)
    vault.write("Lena is visiting next week, we will go hiking.", speaker="Maya",
                session_id="s1", now=NOW - timedelta(minutes=5))  # fmt: skip
    vault.recall("what is the hiking plan", session_id="s1", now=NOW - timedelta(minutes=4))


def test_a_predicted_question_is_served_warm_with_the_same_hits(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db") as vault:
        _seed(vault)
        out = vault.prefetch("s1")
        warmed = {w["query"]: w["why"] for w in out["warmed"]}
        assert "what is the hiking plan" in warmed  # asked again
        assert "Where does Lena live?" in warmed  # the shape, filled with what s1 talked about
        assert "just talked about" in warmed["Where does Lena live?"]
        assert len(warmed) <= vault.settings.prefetch.max_queries

        fresh = vault.recall("Where does Lena live?", k=5)  # no session: computed
        warm = vault.recall("where is lena living", k=5, session_id="s1")  # same signature
        assert warm.prefetched and not fresh.prefetched
        assert [(h.id, round(h.score, 9)) for h in warm] == [
            (h.id, round(h.score, 9)) for h in fresh
        ]  # what the predicted question gets, as the explanation says
        assert "Porto" in warm[0].text
        note = warm[0].explanation.text()
        assert "from the prefetch cache: predicted 'Where does Lena live?'" in note

        # not served: another session, more hits than warmed, a past view, an unknown query
        assert not vault.recall("where is lena living", session_id="s2").prefetched
        assert not vault.recall("where is lena living", k=20, session_id="s1").prefetched
        then = NOW - timedelta(days=1)
        assert not vault.recall("where is lena living", as_of=then, session_id="s1").prefetched
        assert not vault.recall("who runs the guild", session_id="s1").prefetched

        # any write to the namespace makes the cache stale
        vault.write("Lena moved to Lisbon.", speaker="Maya", session_id="s3")
        again = vault.recall("where is lena living", k=5, session_id="s1")
        assert not again.prefetched and "Lisbon" in " ".join(h.text for h in again)


def test_the_cache_is_bounded_and_old_entries_leave(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db", prefetch={"max_queries": 2, "ttl_s": 60}) as vault:
        _seed(vault)
        assert len(vault.prefetch("s1")["warmed"]) == 2
        assert len(vault.store.list_docs("default", "prefetch")) == 2
        later = NOW + timedelta(minutes=5)
        assert not vault.recall("what is the hiking plan", session_id="s1", now=later).prefetched
        vault.write("Tobias says hi.", session_id="s9", now=later)
        dropped = vault.prefetch("s9", now=later)["dropped"]
        assert dropped == 2  # s1's entries were past the ttl


def test_bad_input_is_refused_and_odd_questions_do_not_break_it(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db") as vault:
        _seed(vault)
        with pytest.raises(InvalidInputError):
            vault.prefetch("  ")
        assert vault.store.list_docs("default", "prefetch") == []
        for odd in ("Is Tobias {really} in {0}?", "Tobias, Tobias, Tobias?", "{}{} Tobias"):
            vault.recall(odd)
            vault.recall(odd)
        warmed = [w["query"] for w in vault.prefetch("s1")["warmed"]]
        assert "Is Lena {really} in {0}?" in warmed or "Lena, Lena, Lena?" in warmed


def test_the_server_prefetches_after_a_sessions_writes(tmp_path: Path) -> None:
    vault = open_vault(tmp_path / "v.db", secret_key=SECRET, server={"admin_key": ADMIN})
    _seed(vault)
    from api.app import create_app

    with (
        serving(create_app(vault, InProcessJobs(vault.c))) as url,
        httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ADMIN}"}) as c,
    ):
        turn = {"content": "Lena booked the train.", "speaker": "Maya"}
        w = c.post("/v1/ns/default/sessions/s1/episodes", json={"items": [turn]})
        assert w.status_code == 201
        body = {"query": "where does Lena live", "k": 5, "session_id": "s1", "explain": True}
        deadline = time.monotonic() + 20
        while not (r := c.post("/v1/ns/default/recall", json=body).json())["prefetched"]:
            assert time.monotonic() < deadline, "the prefetch job never warmed the session"
            time.sleep(0.1)
        assert r["hits"][0]["explanation"]["prefetched"]  # says where it came from
        bad = c.post("/v1/ns/default/recall", json={"query": "x", "session_id": ""})
        assert bad.status_code == 422
    vault.close()


def test_only_questions_a_user_would_ask_are_warmed(tmp_path: Path) -> None:
    """31.8: a slot asked with people is not filled with a place, the speaker is never what
    a question is about, and a filled question whose results do not name what it asks about
    is not kept (listed under ``not_sane``)."""
    with open_vault(tmp_path / "v.db") as vault:
        _seed(vault)
        vault.add_facts(
            [
                {
                    "subject": "Tobias",
                    "subject_type": "person",
                    "predicate": "visited",
                    "object": "Lisbon",
                    "object_is_entity": True,
                },
                {
                    "subject": "Lisbon",
                    "subject_type": "place",
                    "predicate": "is_in",
                    "object": "Portugal",
                },
            ]
        )
        vault.write("Lisbon and Maya: a weekend with Tobias.", speaker="Maya", session_id="s1",
                    now=NOW - timedelta(minutes=3))  # fmt: skip
        out = vault.prefetch("s1")
        warmed = [w["query"] for w in out["warmed"]]
        assert "Where does Lisbon live?" not in warmed + out["not_sane"]  # a place, not a person
        assert "Where does Portugal live?" not in warmed  # a literal, no person either
        assert "Where does Maya live?" not in warmed + out["not_sane"]  # the speaker
        assert "Where does Tobias live?" in warmed
        assert all(q not in warmed for q in out["not_sane"])
