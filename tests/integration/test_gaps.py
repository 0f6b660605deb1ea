"""The recall log, recall verdicts and recall-failure knowledge gaps: two incorrect answers
to one question (worded differently) open one gap, the next such recall carries a hint and no
other does, a correct answer closes it; bad input changes nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memvault import FixedClock, MemVault
from memvault.cli.main import app
from memvault.embed import HashingEmbedder
from memvault.errors import InvalidInputError, NotFoundError
from memvault.profile.recall_log import intent, signature

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def open_vault(path: Path, **kw: Any) -> MemVault:
    return MemVault.open(path, embedder=HashingEmbedder(), clock=FixedClock(NOW), **kw)


def test_signatures_and_intents_are_simple_rules() -> None:
    assert signature("Where does Maya live?") == signature("where is maya living") == "live maya"
    assert signature("When is the standup?") != signature("Where does Maya live?")
    assert intent("Where does Maya live?") == "where" and intent("Maya's address") == "lookup"


def test_two_incorrect_verdicts_open_a_gap_and_a_correct_one_closes_it(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db") as vault:
        wrong = vault.write("Maya likes trail running on Sundays.", speaker="Maya")
        first = vault.recall("Where does Maya live?")
        assert first.recall_id and first.hint is None
        state = vault.verdict(first.recall_id, "incorrect", hit_id=wrong.id)["gap"]
        assert state == {"signature": "live maya", "status": "watching", "fail_count": 1}
        assert vault.get_episode(wrong.id).importance == pytest.approx(0.4)  # it lost some
        second = vault.recall("where is maya living")  # the same question, other words
        assert second.hint is None  # one failure is not a gap yet
        assert vault.verdict(second.recall_id or "", "incorrect")["gap"]["status"] == "open"
        (gap,) = [g for g in vault.gaps() if g["kind"] == "recall_failure"]
        assert gap["fail_count"] == 2 and gap["examples"] == [
            "Where does Maya live?",
            "where is maya living",
        ]
        third = vault.recall("Where does Maya live now?")
        assert third.hint and "failed before (2×" in third.hint
        assert vault.recall("When does Maya run?").hint is None  # no other question
        right = vault.write("Maya lives in Lisbon since June.", speaker="Maya")
        fourth = vault.recall("where does maya live")
        closed = vault.verdict(fourth.recall_id or "", "correct", hit_id=right.id)["gap"]
        assert closed["status"] == "closed" and vault.gaps() == []
        assert vault.get_episode(right.id).reinforced_count == 1
        assert vault.recall("Where does Maya live?").hint is None


def test_the_log_leaves_the_watermark_and_can_be_turned_off(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db") as vault:
        vault.write("a note")
        mark = vault.stats()["watermark"]
        vault.recall("note")
        assert vault.stats()["watermark"] == mark  # caches and the dream see no change
    with open_vault(tmp_path / "v.db", recall={"log": False}) as vault:
        assert vault.recall("note").recall_id is None


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda v, r: v.verdict(r, "meh"), InvalidInputError),
        (lambda v, r: v.verdict("no-such-recall", "correct"), NotFoundError),
        (lambda v, r: v.verdict(r, "incorrect", hit_id="not-returned"), InvalidInputError),
    ],
)
def test_bad_verdicts_are_refused_and_change_nothing(
    tmp_path: Path, call: Any, error: type
) -> None:
    with open_vault(tmp_path / "v.db") as vault:
        e = vault.write("Maya likes trail running.")
        rid = vault.recall("what does Maya like?").recall_id
        with pytest.raises(error):
            call(vault, rid)
        assert vault.gaps() == [] and vault.get_episode(e.id).importance == 0.5


def test_the_commands(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with open_vault(path) as vault:
        vault.write("Maya likes trail running.")
    env = {"MEMVAULT_DB_PATH": str(path), "MEMVAULT_EMBEDDER": "hashing"}

    def run(*args: str) -> Any:
        return CliRunner().invoke(app, list(args), env=env)

    for _ in range(2):
        hits = json.loads(run("recall", "where does Maya live", "--json").stdout)
        assert run("verdict", hits[0]["recall_id"], "incorrect").exit_code == 0
    listed = json.loads(run("gaps", "--json").stdout)
    assert listed[0]["kind"] == "recall_failure" and listed[0]["signature"] == "live maya"
    again = run("recall", "Where does Maya live?")
    assert "failed before" in again.stdout
    assert run("verdict", "x", "meh").exit_code == 2


def test_the_profile_shows_what_rose_and_what_cooled(tmp_path: Path) -> None:
    from datetime import timedelta

    start = NOW - timedelta(days=90)
    with open_vault(tmp_path / "v.db") as vault:
        for day in range(0, 60, 3):  # the first two months: the Berlin office, with Tobias
            vault.write(
                f"I met Tobias at the Berlin office, day {day}.",
                speaker="Maya",
                now=start + timedelta(days=day),
            )
        for day in range(84, 90):  # the last week: the Lisbon move, with Ana
            vault.write(
                f"I talked to Ana about the Lisbon flat, day {day}.",
                speaker="Maya",
                now=start + timedelta(days=day),
            )
        vault.recall("Where is the Lisbon flat?", now=NOW - timedelta(days=1))
        p = vault.profile(now=NOW)
        assert {"Ana", "Lisbon"} <= set(p["rising"])
        assert {"Tobias", "Berlin"} <= set(p["cooling"])
        assert not {"Ana", "Lisbon"} & set(p["cooling"])
        week = dict(p["windows"]["7"]["entities"])
        assert "Tobias" not in week and week["Lisbon"] >= 6  # six writes and one recall
        assert p["windows"]["7"]["intents"] == [("where", 1)]
        paused = vault.profile(now=NOW + timedelta(days=20))  # three quiet weeks later
        assert paused["quiet"] and paused["cooling"] == [] and paused["rising"] == []
        # a question that names nothing is still something asked: no pause (found using
        # the CLI: five "What is my phone number?" recalls, and "nothing … asked")
        vault.recall("What is my phone number?", now=NOW + timedelta(days=19))
        asked = vault.profile(now=NOW + timedelta(days=20))
        assert not asked["quiet"] and asked["windows"]["7"]["recalls"] == 1


def test_profile_windows_must_increase(tmp_path: Path) -> None:
    from memvault.errors import ConfigError

    with pytest.raises(ConfigError, match=r"profile\.windows"):
        open_vault(tmp_path / "v.db", profile={"windows": [30, 7, 90]})
