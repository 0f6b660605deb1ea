import math
from datetime import timedelta

import pytest

from memvault.config import RecallSettings
from memvault.kg.model import Episode, Fact, MemoryType
from memvault.recall.query import keyword_terms, name_candidates, vector_text
from memvault.recall.scoring import (
    anti_stickiness,
    score_episode,
    score_fact,
)
from tests.conftest import T0

S = RecallSettings()


def ep(**kw: object) -> Episode:
    return Episode(namespace="n", content="x", occurred_at=T0, created_at=T0, **kw)


@pytest.mark.parametrize(
    ("kind", "lam"),
    [
        (MemoryType.USER, 0.0005),
        (MemoryType.REFERENCE, 0.001),
        (MemoryType.FEEDBACK, 0.002),
        (MemoryType.PROJECT, 0.01),
    ],
)
def test_per_type_age_decay(kind: MemoryType, lam: float) -> None:
    f = score_episode(ep(type=kind), 1.0, T0 + timedelta(days=100), S)
    assert f.decay == pytest.approx(S.decay_floor + (1 - S.decay_floor) * math.exp(-lam * 100))
    plain = RecallSettings(decay_floor=0.0)
    assert score_episode(ep(type=kind), 1.0, T0 + timedelta(days=100), plain).decay == (
        pytest.approx(math.exp(-lam * 100))
    )


def test_decay_never_buries_a_clear_match_under_a_weak_new_one() -> None:
    """A project note matching the question exactly, a year old, against a new one that
    barely does (relevance 0.12): age orders similar memories, it does not overturn this."""
    now = T0 + timedelta(days=365)
    old = score_episode(ep(type=MemoryType.PROJECT), 1.0, now, S)
    new = score_episode(
        Episode(namespace="n", content="y", occurred_at=now, created_at=now,
                type=MemoryType.PROJECT), 0.12, now, S)  # fmt: skip
    assert old.score > new.score
    close = score_episode(
        Episode(namespace="n", content="y", occurred_at=now, created_at=now,
                type=MemoryType.PROJECT), 0.9, now, S)  # fmt: skip
    assert close.score > old.score  # of similar relevance, the newer still leads


def test_access_boost_is_capped() -> None:
    assert score_episode(ep(access_count=3), 1.0, T0, S).access_boost == pytest.approx(1.3)
    assert score_episode(
        ep(access_count=50, reinforced_count=50), 1.0, T0, S
    ).access_boost == pytest.approx(2.0)


def test_anti_stickiness_penalises_fetched_but_unconfirmed() -> None:
    assert anti_stickiness(4, 0, S) == 1.0  # below the access floor
    assert anti_stickiness(6, 2, S) == 1.0  # ratio 3: no excess
    assert anti_stickiness(10, 1, S) == pytest.approx(0.95**7)
    assert anti_stickiness(1000, 0, S) == pytest.approx(0.95**30)  # capped


def test_use_orders_similar_matches_but_never_overturns_a_clear_one() -> None:
    popular = score_episode(ep(access_count=10, reinforced_count=10), 0.6, T0, S)
    clear = score_episode(ep(), 1.0, T0, S)
    assert popular.access_boost == pytest.approx(2.0) and popular.use == pytest.approx(1.25)
    assert clear.score > popular.score  # unbounded: 0.6 × 2.0 > 1.0
    close = score_episode(ep(), 0.9, T0, S)
    assert score_episode(ep(access_count=4), 0.9, T0, S).score > close.score  # ties: use orders


def test_a_clear_answer_asked_for_again_and_again_is_not_buried() -> None:
    asked = score_episode(ep(access_count=1000), 1.0, T0, S)  # fetched, never confirmed
    assert asked.stickiness == pytest.approx(0.95**30) and asked.use == pytest.approx(0.8)
    assert asked.score > score_episode(ep(), 0.7, T0, S).score  # unbounded: 0.43 < 0.7
    f = Fact(namespace="n", subject_id="s", subject="S", predicate="p", object="o",
             statement="S p o", valid_at=T0, created_at=T0, access_count=1000)  # fmt: skip
    assert score_fact(f, 1.0, T0, S).use == pytest.approx(0.8)


def test_composite_multiplies_every_factor() -> None:
    f = score_episode(ep(importance=0.8, access_count=2), 0.5, T0 + timedelta(days=10), S)
    floor = S.decay_floor
    expected = 0.5 * 0.8 * (floor + (1 - floor) * math.exp(-0.0005 * 10)) * 1.2 * 1.0
    assert f.score == pytest.approx(expected)


def test_effective_confidence_halves_each_half_life_since_last_confirmed() -> None:
    f = Fact(
        namespace="n",
        subject_id="s",
        subject="A",
        predicate="p",
        object="o",
        statement="A p o",
        confidence=0.8,
        valid_at=T0 - timedelta(days=3650),  # true for ten years: that does not age it
        created_at=T0,
    )
    assert f.effective_confidence(T0, 180) == pytest.approx(0.8)
    assert f.effective_confidence(T0 + timedelta(days=180), 180) == pytest.approx(0.4)
    f.last_reinforced_at = T0 + timedelta(days=180)  # restated: fresh again
    assert f.effective_confidence(T0 + timedelta(days=180), 180) == pytest.approx(0.8)


def test_query_terms_drop_stopwords_but_never_empty() -> None:
    assert keyword_terms("What did Caroline research?") == ["caroline", "research"]
    assert keyword_terms("what is it") == ["what", "is", "it"]
    assert "new york" in name_candidates("trip to New York's museums")


def test_query_terms_carry_the_other_spelling_of_a_word() -> None:
    terms = keyword_terms("my favourite colour")
    assert terms == ["favourite", "favorite", "colour", "color"]
    assert keyword_terms("the program I organized") == [
        "program", "programme", "organized", "organised"
    ]  # fmt: skip
    assert keyword_terms("four hours on tour") == ["four", "hours", "tour"]  # not variants


def test_the_query_vector_text_leaves_out_speakers_names() -> None:
    speakers = ["Caroline", "Melanie", "Maya Chen"]
    assert vector_text("What did Caroline and Melanie's kids paint?", speakers) == (
        "What did and kids paint?"
    )
    assert vector_text("Where does maya live now?", speakers) == "Where does live now?"
    assert vector_text("Is Mayan art on Caroline's list?", speakers) == "Is Mayan art on list?"
    assert vector_text("Who is Lena?", speakers) == "Who is Lena?"  # not a speaker: kept
    assert vector_text("Caroline?", speakers) == "Caroline?"  # nothing else: kept whole
    assert vector_text("What did Caroline say?", []) == "What did Caroline say?"
    # a speaker whose name is a stop word keeps it: it is the question's grammar too
    assert vector_text("Will Will move to Oslo?", ["Will"]) == "Will Will move to Oslo?"
