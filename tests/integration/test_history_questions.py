"""Questions about the past ("where did she live before Bergen?", "where did I work before?")
get the statement that held the value before the one they name: the question's words find
the newer statement, not the one asked for. From the rules' chains before any dream and from
the dream's links after one; the answer is explained, and nothing else is reordered."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memvault import MemVault

START = datetime(2025, 2, 3, 9, tzinfo=UTC)
NOW = START + timedelta(days=400)
GRAZ, BERGEN = "flat in Graz", "moved to Bergen"

TURNS = [
    (0, "I just signed the lease on a flat in Graz."),
    (0, "Can you suggest a good stretching routine?"),
    (100, "We finally moved to Bergen, the boxes are everywhere."),
    (100, "I need a birthday present idea for my nephew."),
    (101, "The weather in Bergen is wild, rain every day."),
    (250, "Big news: we relocated to Oslo for good."),
    (250, "Remind me to call the plumber on Monday."),
    (300, "I still have moving boxes from years ago in the basement."),
]


def _write(vault: MemVault) -> None:
    for day, text in TURNS:
        when = START + timedelta(days=day)
        vault.write(text, speaker="Ines", session_id=f"s{day}", namespace="ines", now=when)
        later = when + timedelta(minutes=1)
        vault.write("Noted. Anything else on your mind?", speaker="Assistant",
                    session_id=f"s{day}", namespace="ines", now=later)  # fmt: skip


def _first(vault: MemVault, query: str) -> str:
    return vault.recall(query, namespace="ines", k=10, now=NOW)[0].text


@pytest.mark.parametrize("dream", [False, True], ids=["before a dream", "after a dream"])
def test_the_value_before_the_named_one_comes_first(vault: MemVault, dream: bool) -> None:
    _write(vault)
    if dream:
        vault.dream(namespace="ines", apply=True, force=True, now=NOW)
    assert GRAZ in _first(vault, "Where did Ines live before moving to Bergen?")
    assert BERGEN in _first(vault, "Where did Ines live before Oslo?")
    # no value named: before the value that is current
    assert BERGEN in _first(vault, "Where did Ines live before?")
    hit = vault.recall("Where did Ines live before Oslo?", namespace="ines", k=10, now=NOW)[0]
    why = hit.explanation.text()
    assert "answers a question about the past" in why and "'Bergen' before 'Oslo'" in why
    # the question about now still gets the newest statement first
    assert "Oslo" in _first(vault, "Where does Ines live now?")  # the fact or its statement


def test_a_history_question_about_another_attribute_reorders_nothing(vault: MemVault) -> None:
    _write(vault)
    hits = vault.recall("Which team was Ines on before?", namespace="ines", k=10, now=NOW)
    assert all(h.explanation.factors.currency == 1.0 for h in hits)


def test_someone_elses_past_is_not_the_answer(vault: MemVault) -> None:
    _write(vault)
    for day, text in [(10, "I live in Lyon."), (200, "We moved to Ghent last month.")]:
        vault.write(text, speaker="Marco", session_id=f"m{day}", namespace="ines",
                    now=START + timedelta(days=day))  # fmt: skip
    hits = vault.recall("Where did Ines live before Oslo?", namespace="ines", k=10, now=NOW)
    lifted = [h.text for h in hits if h.explanation.factors.currency > 1.0]
    assert lifted and all("Lyon" not in t and "Ghent" not in t for t in lifted)
