from datetime import timedelta

import pytest

from memvault import InvalidBatchError, InvalidInputError, MemVault
from tests.conftest import T0


def test_write_stores_normalised_content_entities_facts_and_vectors(vault: MemVault) -> None:
    e = vault.write(
        "  I live in   Lisbon\x00 and my manager is Rui Costa. ",
        speaker="Ana",
        session_id="s1",
        namespace="ana",
    )
    assert e.content == "I live in Lisbon and my manager is Rui Costa."
    assert e.position == 0 and e.created_at == T0
    stats = vault.stats(namespace="ana")
    assert stats["episodes"] == 1 and stats["sessions"] == 1
    assert {(f.predicate, f.object) for f in vault.facts(namespace="ana")} == {
        ("lives_in", "Lisbon"),
        ("manager", "Rui Costa"),
    }
    assert stats["vectors"] == stats["episodes"] + stats["facts"] + stats["entities"]


def test_exact_duplicates_are_gated_by_session_speaker_and_external_id(vault: MemVault) -> None:
    first = vault.write_many(
        [
            {"content": "hello there", "session_id": "s1", "speaker": "A"},
            {"content": "hello there", "session_id": "s1", "speaker": "A"},
            {"content": "hello there", "session_id": "s2", "speaker": "A"},
            {"content": "other", "external_id": "t1"},
        ]
    )
    assert first.created == 3 and first.duplicates == 1
    assert first.episode_ids[0] == first.episode_ids[1]
    again = vault.write_many(
        [
            {"content": "hello there", "session_id": "s1", "speaker": "A"},
            {"content": "changed text", "external_id": "t1"},
        ]
    )
    assert again.created == 0 and again.duplicates == 2
    assert again.episode_ids == [first.episode_ids[0], first.episode_ids[3]]


def test_a_batch_with_one_bad_item_writes_nothing_and_names_each_problem(vault: MemVault) -> None:
    vault.write("kept", namespace="n")
    before = vault.stats(namespace="n")
    with pytest.raises(InvalidBatchError) as info:
        vault.write_many(
            [
                {"content": "fine"},
                {"content": "   "},
                {"content": "x", "type": "diary"},
                {"content": "x", "importance": float("nan")},
                {"content": "x", "occurred_at": "yesterday-ish"},
                {"content": "x", "colour": "red"},
            ],
            namespace="n",
        )
    where = [p.where for p in info.value.problems]
    assert where == ["item 1", "item 2", "item 3", "item 4", "item 5"]
    messages = " ".join(p.message for p in info.value.problems)
    for expected in ("empty", "type", "importance", "occurred_at", "colour"):
        assert expected in messages
    assert vault.stats(namespace="n") == before


def test_text_over_the_limit_is_truncated_with_a_marker(vault: MemVault) -> None:
    long = "word " * 5000
    e = vault.write(long, namespace="n")
    assert len(e.content) < vault.settings.max_content_chars + 40
    assert "truncated" in e.content and e.metadata["truncated"] is True


def test_repeated_statement_reinforces_the_fact_instead_of_duplicating(vault: MemVault) -> None:
    vault.write("I prefer tea", speaker="Ana", session_id="s1", namespace="ana")
    vault.write(
        "I prefer tea",
        speaker="Ana",
        session_id="s2",
        namespace="ana",
        now=T0 + timedelta(days=3),
        occurred_at=T0 + timedelta(days=3),
    )
    (fact,) = vault.facts(namespace="ana", predicate="prefers")
    assert fact.reinforced_count == 1
    assert fact.last_reinforced_at == T0 + timedelta(days=3)
    assert fact.source_session_ids == ["s1", "s2"] and len(fact.source_episode_ids) == 2


def test_restatements_in_one_batch_add_up_once_each(vault: MemVault) -> None:
    """A stored fact restated three times in one batch (one dated before it), and a fact
    first said in the batch and restated there: counts, sources and times as if one by one."""
    day = timedelta(days=1)
    vault.write(
        "I prefer tea", speaker="Ana", session_id="s0", namespace="ana", occurred_at=T0 - 10 * day
    )
    said = [
        ("I prefer tea", "s2", -8),
        ("I prefer tea", "s1", -15),
        ("I prefer tea", "s3", -6),
        ("I live in Porto", "s2", -8),
        ("I live in Porto", "s3", -7),
    ]
    vault.write_many(
        [
            {"content": c, "speaker": "Ana", "session_id": s, "occurred_at": T0 + n * day}
            for c, s, n in said
        ],
        namespace="ana",
    )
    (tea,) = vault.facts(namespace="ana", predicate="prefers")
    assert tea.reinforced_count == 3
    assert tea.source_session_ids == ["s0", "s2", "s1", "s3"]
    assert len(tea.source_episode_ids) == 4
    assert tea.valid_at == T0 - 15 * day  # known true from the earliest statement
    assert tea.last_reinforced_at == T0 - 6 * day  # never moved back by the older one
    (home,) = vault.facts(namespace="ana", predicate="lives_in")
    assert home.reinforced_count == 0 and home.last_reinforced_at is None
    assert home.source_session_ids == ["s2", "s3"] and home.valid_at == T0 - 8 * day


def test_positions_continue_across_batches_of_a_session(vault: MemVault) -> None:
    a = vault.write_many([{"content": f"turn {i}", "session_id": "s"} for i in range(3)])
    b = vault.write_many([{"content": f"turn {i}", "session_id": "s"} for i in range(3, 5)])
    eps = vault.store.get_episodes("default", a.episode_ids + b.episode_ids)
    assert [e.position for e in eps] == [0, 1, 2, 3, 4]


def test_structured_facts_keep_their_validity(vault: MemVault) -> None:
    f = vault.add_fact(
        "Ana",
        "lives_in",
        "Berlin",
        valid_at=T0 - timedelta(days=400),
        invalid_at=T0 - timedelta(days=30),
        namespace="ana",
    )
    g = vault.add_fact(
        "Ana", "lives_in", "Lisbon", valid_at=T0 - timedelta(days=30), namespace="ana"
    )
    assert [x.id for x in vault.facts(namespace="ana")] == [g.id]
    assert [x.id for x in vault.facts(namespace="ana", as_of=T0 - timedelta(days=100))] == [f.id]
    assert {x.id for x in vault.facts(namespace="ana", include_history=True)} == {f.id, g.id}
    assert vault.facts(namespace="ana", subject="ana", predicate="Lives In")[0].id == g.id


@pytest.mark.parametrize(
    "bad",
    [
        {"confidence": float("nan")},
        {"confidence": 1.2},
        {"valid_at": "2025-02-01", "invalid_at": "2025-01-01"},
        {"valid_at": "not a date"},
    ],
)
def test_bad_facts_are_refused_and_nothing_is_written(vault: MemVault, bad: dict) -> None:
    with pytest.raises(InvalidBatchError):
        vault.add_fact("Ana", "likes", "tea", namespace="ana", **bad)
    assert vault.stats(namespace="ana")["facts"] == 0


def test_invalid_namespace_is_refused(vault: MemVault) -> None:
    with pytest.raises(InvalidInputError, match="namespace"):
        vault.write("x", namespace="no spaces please")


def test_bytes_must_be_utf8(vault: MemVault) -> None:
    with pytest.raises(InvalidInputError, match="UTF-8"):
        vault.write(b"caf\xe9")
