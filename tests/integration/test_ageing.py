"""Ageing is a change of belief, not evidence that a fact stopped being true: a fact the
janitor culls leaves the current view at the dream's time, while as-of reads for any earlier
time still answer it and the history lists it; facts about the person are never aged out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder

SAID = datetime(2024, 2, 5, 10, tzinfo=UTC)
LATER = datetime(2026, 7, 1, tzinfo=UTC)


def quiet_sessions(vault: MemVault, kind: str) -> None:
    vault.write_many(
        [{"content": "I work at Brightline Foods.", "speaker": "Jonas", "type": kind,
          "session_id": "s0", "occurred_at": SAID}]
        + [{"content": f"Weather chat number {n}, nothing new.", "speaker": "Jonas",
            "session_id": f"s{n}", "occurred_at": SAID + timedelta(days=n)} for n in range(1, 7)],
    )  # fmt: skip


def employers(facts: list) -> list[str]:  # type: ignore[type-arg]
    return [f.object for f in facts if f.predicate == "works_at"]


def test_a_culled_fact_still_answers_as_of_reads_before_the_cull(tmp_path: Path) -> None:
    clock = FixedClock(SAID)
    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder(), clock=clock) as vault:
        quiet_sessions(vault, "episodic")
        assert employers(vault.facts(subject="Jonas")) == ["Brightline Foods"]
        clock.set(LATER)
        result = vault.dream(apply=True, force=True)
        assert result.report["stages"]["janitor"]["culled"], "the fact decayed below the floor"
        assert employers(vault.facts(subject="Jonas")) == []  # not believed any more, now
        as_of = datetime(2024, 3, 1, tzinfo=UTC)
        assert employers(vault.facts(subject="Jonas", as_of=as_of)) == ["Brightline Foods"]
        history = vault.facts(subject="Jonas", include_history=True)
        assert employers(history) == ["Brightline Foods"]
        assert history[0].invalid_at is None, "ageing never ends validity in the world"
        clock.set(LATER + timedelta(days=90))  # long past any retention: nothing is deleted
        vault.dream(apply=True, force=True)
        assert employers(vault.facts(subject="Jonas", include_history=True)) == employers(history)
        assert employers(vault.facts(subject="Jonas", as_of=as_of)) == ["Brightline Foods"]


def test_facts_about_the_person_are_never_aged_out(tmp_path: Path) -> None:
    clock = FixedClock(SAID)
    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder(), clock=clock) as vault:
        quiet_sessions(vault, "user")
        clock.set(LATER)
        vault.dream(apply=True, force=True)
        assert employers(vault.facts(subject="Jonas")) == ["Brightline Foods"]


def test_a_restatement_keeps_the_earliest_start_and_the_latest_confirmation(
    tmp_path: Path,
) -> None:
    clock = FixedClock(SAID)
    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder(), clock=clock) as vault:
        vault.add_fact("Jonas", "plays", "cello", valid_at=datetime(2023, 9, 1, tzinfo=UTC))
        clock.set(SAID + timedelta(days=30))
        vault.add_fact("Jonas", "plays", "cello", valid_at=datetime(2019, 1, 1, tzinfo=UTC))
        (fact,) = vault.facts(subject="Jonas", include_history=True)
        assert fact.valid_at == datetime(2019, 1, 1, tzinfo=UTC)  # known true since then
        assert fact.reinforced_count == 1
        assert fact.last_reinforced_at is not None
        assert fact.last_reinforced_at >= datetime(2023, 9, 1, tzinfo=UTC)  # never moved back
        assert vault.facts(subject="Jonas", as_of=datetime(2020, 6, 1, tzinfo=UTC))


def test_an_as_of_read_lists_a_fact_a_dream_merged_once(tmp_path: Path) -> None:
    """Two identical facts (as two imports leave them) merged by a dream: an as-of read for a
    time before the merge answers what was believed then, once."""
    from memvault.kg.model import Fact
    from memvault.kg.store import Batch

    clock = FixedClock(SAID)
    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder(), clock=clock) as vault:
        (first,) = vault.add_facts(
            [{"subject": "Jonas", "predicate": "plays", "object": "cello", "valid_at": SAID}]
        )
        twin = Fact.model_validate({**first.model_dump(), "id": "twin" + first.id[4:]})
        vault.store.apply(Batch(namespace="default", facts=[twin]))
        assert len(vault.facts(subject="Jonas")) == 2
        clock.set(SAID + timedelta(days=10))
        result = vault.dream(apply=True, force=True)
        assert result.report["stages"]["consolidate"]["duplicate_facts_merged"] == 1
        assert len(vault.facts(subject="Jonas")) == 1
        as_of = SAID + timedelta(days=5)
        assert [f.object for f in vault.facts(subject="Jonas", as_of=as_of)] == ["cello"]
