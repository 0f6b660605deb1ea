"""Currency by meaning (memvault.recall.groups): which questions are about now, and how
statements that mean the same thing are grouped (transitively, one speaker at a time)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from memvault.kg.model import Episode
from memvault.recall.groups import asks_about_now, naming_pairs, newest_of_groups

T = datetime(2025, 1, 1, tzinfo=UTC)


def ep(i: int, speaker: str = "Uma") -> Episode:
    return Episode(
        id=f"e{i}",
        namespace="n",
        content=f"statement {i}",
        speaker=speaker,
        occurred_at=T + timedelta(days=i),
        created_at=T + timedelta(days=i),
    )


def test_a_question_about_now_has_no_past_marker() -> None:
    assert asks_about_now("Which city is Uma in these days?")
    assert asks_about_now("Who is Uma dating?")
    for past in (
        "Where did Uma live before Ghent?",
        "Which city was Uma in last spring?",
        "Who was Uma seeing two years ago?",
        "Where did Uma work in 2023?",
        "Where did Uma live first?",
    ):
        assert not asks_about_now(past), past


def test_close_statements_of_one_speaker_group_and_the_newest_heads_them() -> None:
    a, b, c = np.array([1.0, 0.0, 0.0]), np.array([0.9, 0.1, 0.0]), np.array([0.0, 0.0, 1.0])
    ab = np.array([0.9, 0.45, 0.0])  # b·ab 0.94, a·ab 0.89: joins a through b
    episodes = [ep(1), ep(2), ep(3), ep(4), ep(5, speaker="Assistant")]
    vectors = {"e1": a, "e2": c, "e3": b, "e4": ab, "e5": a}
    groups = newest_of_groups(episodes, vectors, threshold=0.9)
    assert groups == {"e4": ["e1", "e3"]}  # e2 means something else; e5 is another speaker
    assert newest_of_groups(episodes, vectors, threshold=0.0) == {}  # 0: off
    assert newest_of_groups(episodes[:1], vectors, threshold=0.5) == {}


def test_linked_pairs_join_a_group_whatever_their_cosine() -> None:
    """Statements that each name something (naming_pairs) answer one "which" question: a
    link joins them though their vectors are far apart; a link to another speaker's
    statement, or to an episode not among those grouped, joins nothing."""
    a, c = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])
    episodes = [ep(1), ep(2), ep(3), ep(4, speaker="Assistant")]
    vectors = {"e1": a, "e2": c, "e3": a * -1, "e4": c}
    assert newest_of_groups(episodes, vectors, threshold=0.9) == {}
    linked = naming_pairs(["e1", "e2", "e4", "e9"])
    assert frozenset(("e1", "e2")) in linked and len(linked) == 6
    assert newest_of_groups(episodes, vectors, threshold=0.9, linked=linked) == {"e2": ["e1"]}
