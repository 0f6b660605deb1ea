"""A change of situation that only the dream's update links read ("I left Helio Labs and
joined Quanta Systems": no fact rule reads it) ends the fact written from the old words and
states the new value, so ``facts`` no longer shows the old situation as the current one; the
old fact stays answerable as of before the change, a later restatement of the old value keeps
it, someone else's change touches nothing, and undoing the dream gives the facts back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memvault import MemVault

START = datetime(2025, 1, 10, 9, tzinfo=UTC)
CHANGE = START + timedelta(days=400)
NOW = CHANGE + timedelta(days=5)


def _objects(vault: MemVault, **kw: object) -> list[str]:
    return sorted(f.object for f in vault.facts(namespace="lea", predicate="works_at", **kw))


def _say(vault: MemVault, text: str, when: datetime, session: str) -> None:
    vault.write(text, speaker="Lea", session_id=session, namespace="lea", now=when)


def test_the_dream_ends_the_old_fact_and_states_the_new_value(vault: MemVault) -> None:
    _say(vault, "I work at Helio Labs as a data engineer.", START, "a")
    _say(vault, "My sister Joana works at Porto Dynamics.", START, "a")
    _say(vault, "I left Helio Labs and joined Quanta Systems as a staff engineer.", CHANGE, "b")
    before = _objects(vault, as_of=NOW)
    assert "Helio Labs" in before and "Quanta Systems" not in before  # the premise
    result = vault.dream(namespace="lea", apply=True, force=True, now=NOW)
    assert result.report["stages"]["updates"]["facts_superseded"] == 1
    assert "Quanta Systems" in _objects(vault, as_of=NOW)
    assert "Helio Labs" not in _objects(vault, as_of=NOW)
    assert "Helio Labs" in _objects(vault, as_of=CHANGE - timedelta(days=1))  # history kept
    old = next(
        f for f in vault.facts(namespace="lea", include_history=True) if f.object == "Helio Labs"
    )
    assert old.invalid_at == CHANGE and old.expired_at is None
    new = next(f for f in vault.facts(namespace="lea", as_of=NOW) if f.object == "Quanta Systems")
    assert new.valid_at == CHANGE and len(new.source_episode_ids) == 1
    joana = [f for f in vault.facts(namespace="lea", as_of=NOW) if f.subject == "Joana"]
    assert all(f.invalid_at is None for f in joana)  # another person's facts untouched

    vault.undo_dream(result.run_id, namespace="lea")
    assert _objects(vault, as_of=NOW) == before


def test_a_later_restatement_of_the_old_value_keeps_its_fact(vault: MemVault) -> None:
    _say(vault, "I work at Helio Labs as a data engineer.", START, "a")
    _say(vault, "I left Helio Labs and joined Quanta Systems as a staff engineer.", CHANGE, "b")
    _say(vault, "I work at Helio Labs as a data engineer.", NOW - timedelta(days=1), "c")
    vault.dream(namespace="lea", apply=True, force=True, now=NOW)
    assert "Helio Labs" in _objects(vault, as_of=NOW)  # said again after the change


def test_a_link_an_earlier_dream_made_ends_its_facts_too(vault: MemVault) -> None:
    """A vault dreamed before facts followed the links: the link is there, the old fact
    still current; the next dream ends it (and a second changes nothing more)."""
    from memvault.kg.model import Replacement
    from memvault.kg.store import Batch

    _say(vault, "I work at Helio Labs as a data engineer.", START, "a")
    _say(vault, "I left Helio Labs and joined Quanta Systems as a staff engineer.", CHANGE, "b")
    old, newer = sorted(vault.episodes(namespace="lea", limit=10), key=lambda e: e.occurred_at)
    link = Replacement(episode_id=newer.id, at=CHANGE, attribute="employer",
                       before="Helio Labs", after="Quanta Systems")  # fmt: skip
    vault.store.apply(
        Batch(namespace="lea", episodes=[old.model_copy(update={"replaced_by": [link]})])
    )
    assert "Helio Labs" in _objects(vault, as_of=NOW)
    first = vault.dream(namespace="lea", apply=True, force=True, now=NOW)
    assert first.report["stages"]["updates"]["facts_superseded"] == 1
    assert _objects(vault, as_of=NOW) == ["Quanta Systems"]
    again = vault.dream(namespace="lea", apply=True, force=True, now=NOW + timedelta(days=1))
    assert again.report["stages"]["updates"].get("facts_superseded", 0) == 0


def test_a_friend_s_move_supersedes_their_old_city(vault: MemVault) -> None:
    """Facts about the people the speaker talks about change over time too: "my friend Rui
    lives in Porto", months later "Rui moved to Braga"."""
    _say(vault, "My friend Rui lives in Porto, near the river.", START, "a")
    _say(vault, "Big news from the family: Rui moved to Braga.", CHANGE, "b")
    before = vault.contested(namespace="lea", as_of=NOW)
    assert [f.object for f in before.values()] == ["Braga"]  # provisional until the dream
    top = vault.recall("Where does Rui live?", namespace="lea", k=3, now=NOW)[0]
    assert top.text == "Rui lives in Braga"
    vault.dream(namespace="lea", apply=True, force=True, now=NOW)
    rui = {f.object: f for f in vault.facts(namespace="lea", include_history=True)
           if f.subject == "Rui"}  # fmt: skip
    assert rui["Porto"].invalid_at == CHANGE and rui["Braga"].invalid_at is None
