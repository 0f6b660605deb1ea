"""Near-duplicate episodes merged by the dream: the survivor speaks for every turn it
absorbed, through chains of merges too (A absorbed by B, B later by C: C speaks for both),
and recall names all of them as its sources."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memvault import MemVault
from memvault.embed import HashingEmbedder
from memvault.kg.model import Episode

START = datetime(2025, 3, 3, 19, tzinfo=UTC)


def test_the_survivor_of_a_chain_of_merges_speaks_for_every_turn(vault: MemVault) -> None:
    # the same words on three evenings; each later one more important, so each merge keeps
    # the newer record and retires the survivor of the one before
    for day, importance in [(0, 0.2), (7, 0.5), (14, 0.9)]:
        vault.write_many(
            [{"content": "I went to salsa class again this evening.", "speaker": "Ana",
              "session_id": f"s{day}", "importance": importance,
              "occurred_at": START + timedelta(days=day)}],
            namespace="ana",
        )  # fmt: skip
        vault.dream(namespace="ana", apply=True, force=True, now=START + timedelta(days=day + 1))
    episodes = [r for r in vault.store.iter_records("ana") if isinstance(r, Episode)]
    assert len(episodes) == 3
    live = [e for e in episodes if e.expired_at is None]
    assert len(live) == 1 and live[0].importance == 0.9
    others = {e.id for e in episodes} - {live[0].id}
    assert set(live[0].metadata["merged_from"]) == others
    hit = vault.recall("salsa class", namespace="ana", k=1, now=START + timedelta(days=20))[0]
    assert set(hit.source_episode_ids) == {e.id for e in episodes}


@pytest.fixture
def eager(tmp_path: Path) -> Iterator[MemVault]:
    """A vault whose dream merges at cosine 0.5: with the lexical hashing embedder, these
    near-identical sentences are merge candidates (MiniLM puts them at 0.97: test_minilm.py)."""
    with MemVault.open(
        tmp_path / "eager.db",
        embedder=HashingEmbedder(),
        dream={"consolidate": {"duplicate_cosine": 0.5}},
    ) as v:
        yield v


def one_a_day_then_dream(vault: MemVault, said: list[str]) -> dict:
    """Each text written on a day of its own by Ana, then one dream: its consolidate report."""
    for day, text in enumerate(said):
        vault.write_many(
            [{"content": text, "speaker": "Ana", "session_id": f"s{day}",
              "occurred_at": START + timedelta(days=day)}],
            namespace="ana",
        )  # fmt: skip
    now = START + timedelta(days=len(said) + 1)
    result = vault.dream(namespace="ana", apply=True, force=True, now=now)
    return result.report["stages"]["consolidate"]


def test_near_identical_turns_that_differ_in_a_number_or_name_are_never_merged(
    eager: MemVault,
) -> None:
    """Four days of the same sentence with another ticket number, two with another person, two
    with and without a negation: near-identical wording, different claims. After a dream every
    one is still live and found first by what tells it apart; the report lists the refusals."""
    vault = eager
    said = [
        "Today I closed ticket PAY-12 for the invoicing team.",
        "Today I closed ticket PAY-57 for the invoicing team.",
        "Today I closed ticket PAY-101 for the invoicing team.",
        "Today I closed ticket PAY-230 for the invoicing team.",
        "Lunch with Priya at the canteen, as every Friday.",
        "Lunch with Tomasz at the canteen, as every Friday.",
        "I did not renew the gym membership this month.",
        "I did renew the gym membership this month.",
    ]
    consolidate = one_a_day_then_dream(vault, said)
    assert consolidate["episodes_merged"] == 0 and consolidate["merges_refused"] >= 4
    differ = {t for x in consolidate["merges_refused_examples"] for t in x["differ"]}
    assert {"pay-12", "pay-101", "priya", "tomasz", "¬"} <= differ
    live = [r for r in vault.store.iter_records("ana") if isinstance(r, Episode)]
    assert sorted(e.content for e in live if e.expired_at is None) == sorted(said)
    for text, key in [(said[2], "PAY-101"), (said[5], "Tomasz"), (said[6], "did not renew")]:
        hit = vault.recall(key, namespace="ana", k=1, now=START + timedelta(days=10))[0]
        assert hit.text == text


def test_the_same_words_again_still_merge(eager: MemVault) -> None:
    vault = eager
    for day in (0, 3):
        vault.write_many(
            [{"content": "Closed ticket PAY-12 for the invoicing team.", "speaker": "Ana",
              "session_id": f"s{day}", "occurred_at": START + timedelta(days=day)}],
            namespace="ana",
        )  # fmt: skip
    result = vault.dream(namespace="ana", apply=True, force=True, now=START + timedelta(days=4))
    assert result.report["stages"]["consolidate"]["episodes_merged"] == 1


def test_a_turn_that_says_more_or_other_words_is_never_merged_away(eager: MemVault) -> None:
    """Shapes found merged on real shared chats (MiniLM cosine 0.94-0.99): a request asked
    again with more in it, a board game's state with another corner, two method names one
    letter pair apart. Each pair stays two memories, listed with the words that differ; the
    same words told apart only by case and punctuation still merge."""
    vault = eager
    said = [
        "how to do daily diff data by oracle sql material view",
        "how to do daily diff data by oracle sql material view and schedule job",
        'Ok, you\'ve placed your "X" in the top left corner of the grid.',
        'Ok, you\'ve placed your "X" in the bottom right corner of the grid.',
        "Rewrite public function actionAssignedToMe() and add the comments table.",
        "Rewrite public function actionAssignedByMe() and add the comments table.",
        "Thanks, that worked perfectly!",
        "thanks -- that worked perfectly",
    ]
    consolidate = one_a_day_then_dream(vault, said)
    assert consolidate["episodes_merged"] == 1
    differ = {t for x in consolidate["merges_refused_examples"] for t in x["differ"]}
    assert {"schedule", "job", "top", "bottom", "actionassignedtome"} <= differ
    pairs = [frozenset(x["ids"]) for x in consolidate["merges_refused_examples"]]
    assert len(set(pairs)) == len(pairs)  # a pair of new turns is refused once, not twice
    live = [r for r in vault.store.iter_records("ana") if isinstance(r, Episode)]
    assert len([e for e in live if e.expired_at is None]) == len(said) - 1
    hit = vault.recall("schedule job", namespace="ana", k=1, now=START + timedelta(days=10))[0]
    assert hit.text == said[1]


def test_the_first_said_survives_whatever_the_ids(eager: MemVault) -> None:
    """Eight sentences each said three times in one session (in other case and punctuation:
    the same words), every turn stamped with the session's time (as an import of a dated
    session is): the copy said first (its place in
    the session) survives each merge, not whichever random id sorts first (1 in 3 per
    sentence: the old tie-break put a later copy first in 6,560 of 6,561 such vaults), so two
    imports of one history dream alike."""
    vault = eager
    things = ("boiler", "garden", "bicycle", "printer", "roof", "fridge", "car", "router")
    said = [f"I checked the {thing} again this evening." for thing in things]
    vault.write_many(
        [{"content": say(text), "speaker": "Ana", "session_id": "s0", "occurred_at": START}
         for say in (str, str.lower, lambda t: t.replace(".", "!")) for text in said],
        namespace="ana",
    )  # fmt: skip
    vault.dream(namespace="ana", apply=True, force=True, now=START + timedelta(days=1))
    episodes = [r for r in vault.store.iter_records("ana") if isinstance(r, Episode)]
    for text in said:
        copies = sorted(
            (e for e in episodes if e.content.lower().rstrip(".!") == text.lower().rstrip(".")),
            key=lambda e: e.position,
        )
        assert len(copies) == 3 and len({e.position for e in copies}) == 3
        assert [e.expired_at is None for e in copies] == [True, False, False]
        assert set(copies[0].metadata["merged_from"]) == {e.id for e in copies[1:]}
