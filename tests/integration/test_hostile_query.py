"""A question is read the same way on every surface: control and zero-width characters are
removed as they are from content, a question with nothing readable left is refused saying so,
and a pasted document (over 4,000 characters) is refused rather than read for seconds and kept
in the recall log. Property-tested over any Unicode text: an answer or a clear refusal, never a
traceback. An evaluation file with such questions skips, counts and lists them."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from memvault import FixedClock, MemVault
from memvault.cli.main import app
from memvault.embed import HashingEmbedder
from memvault.errors import InvalidInputError
from memvault.eval.recall_eval import run_recall_eval
from memvault.ingest.normalize import QUERY_MAX_CHARS
from tests.integration.conftest import Server

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
UNREADABLE = ["", "   ", "\u200b\u200b", "\x00\x07\x1b", "\ufeff\u200d \t\n"]


@pytest.fixture
def vault(tmp_path: Path) -> MemVault:
    v = MemVault.open(tmp_path / "q.db", embedder=HashingEmbedder(), clock=FixedClock(NOW))
    v.write_many(
        [
            {"content": "My sister Joana lives in Porto.", "speaker": "Lea"},
            {"content": "I started learning the cello.", "speaker": "Lea"},
        ]
    )
    return v


@pytest.mark.parametrize("query", UNREADABLE)
def test_a_question_with_nothing_readable_is_refused_naming_the_field(
    vault: MemVault, query: str
) -> None:
    with pytest.raises(InvalidInputError) as caught:
        vault.recall(query)
    assert caught.value.field == "query" and "empty" in str(caught.value)


def test_a_pasted_document_is_refused_with_what_to_do_instead(vault: MemVault) -> None:
    before = vault.stats()
    with pytest.raises(InvalidInputError) as caught:
        vault.recall("where does Joana live " * 200)
    assert caught.value.field == "query"
    assert f"at most {QUERY_MAX_CHARS:,}" in str(caught.value) and "fewer words" in str(
        caught.value
    )
    assert vault.stats() == before
    assert vault.recall(("where does Joana live " * 200)[:QUERY_MAX_CHARS], k=1)


def test_control_and_zero_width_characters_do_not_change_the_answer(vault: MemVault) -> None:
    clean = [h.id for h in vault.recall("where does Joana live", k=2)]
    dirty = [h.id for h in vault.recall("where\x07 does\u200b Jo\x00ana\x1b live\ufeff", k=2)]
    assert dirty == clean and "Joana" in vault.recall("Jo\x00ana", k=1)[0].text


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(max_size=300))
def test_any_text_is_answered_or_refused_never_a_traceback(vault: MemVault, query: str) -> None:
    try:
        hits = vault.recall(query, k=3)
    except InvalidInputError as exc:
        assert exc.field == "query"
    else:
        assert len(hits) <= 3


def test_the_cli_refuses_with_a_message_and_exit_2(tmp_path: Path) -> None:
    env = {"MEMVAULT_EMBEDDER": "hashing", "MEMVAULT_DATA_DIR": ""}
    db = str(tmp_path / "c.db")
    CliRunner().invoke(app, ["--db", db, "write", "I live in Porto."], env=env)
    result = CliRunner().invoke(app, ["--db", db, "recall", "\u200b\u200b"], env=env)
    assert result.exit_code == 2 and "query: is empty" in " ".join(result.output.split())
    result = CliRunner().invoke(app, ["--db", db, "recall", "Porto", "--k", "1", "--ids"], env=env)
    assert result.exit_code == 0 and len(result.stdout.split()) == 1


def test_rest_refuses_an_unreadable_question_with_a_json_422(server: Server) -> None:
    key = server.key("maya")
    with server.client(key) as c:
        r = c.post("/v1/ns/maya/recall", json={"query": "\u200b\u200d"})
        assert r.status_code == 422 and r.json()["error"]["field"] == "query"
        r = c.post("/v1/ns/maya/recall", json={"query": "x" * (QUERY_MAX_CHARS + 1)})
        assert r.status_code == 422 and r.json()["error"]["field"] == "query"


def test_an_evaluation_skips_counts_and_lists_questions_it_cannot_ask(tmp_path: Path) -> None:
    turns = tmp_path / "t.jsonl"
    rows = [{"conv_id": "c", "session_id": "1", "turn_id": "t1", "text": "I live in Porto.",
             "session_time_iso": "2025-01-01"}]  # fmt: skip
    turns.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    asked = ["Where do I live?", "", "\u200b", "x" * (QUERY_MAX_CHARS + 1)]
    lines = [
        {"conv_id": "c", "question_id": f"q{i}", "question": q, "evidence_turn_ids": ["t1"]}
        for i, q in enumerate(asked)
    ]
    questions = tmp_path / "q.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in lines), encoding="utf-8")
    with MemVault.open(tmp_path / "e.db", embedder=HashingEmbedder()) as v:
        report = run_recall_eval(v, turns, questions, k=5, out=None)
    assert [q["question_id"] for q in report.skipped_questions] == ["q1", "q2", "q3"]
    assert report.skipped_questions[0]["where"].endswith("q.jsonl:2")
    assert "at most" in report.skipped_questions[2]["why"]
    assert report.scored == 1 and report.overall == 1.0  # the askable one still counted
