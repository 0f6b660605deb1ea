"""Something that ended (memvault/language/endings.py, bench/endings_data.py), end to end with
the real embedder: for a question about now, a newer memory saying that a thing the leading
memories name ended ranks above them, explained; every earlier memory stays in the list and a
question about the past still finds its answer; off by name, the old life leads again; a
supposed ending ends nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from memvault import FixedClock, MemVault

T = datetime(2025, 1, 10, tzinfo=UTC)
BEFORE = [
    "We adopted a beagle puppy called Biscuit, he is the sweetest dog.",
    "Biscuit loves chasing squirrels in the park every morning.",
    "Took Biscuit to the vet for his shots, all good.",
]
ENDED = "Our sweet Biscuit passed away last night. The house feels so empty."
FILLER = [
    "Work had way too many meetings again.",
    "I finally found a good bakery close to home.",
    "My sister is visiting from Hamburg next month.",
    "The office plants are dying, nobody waters them.",
]
NOW = T + timedelta(days=150)


def history(vault: MemVault) -> None:
    for n, text in enumerate(BEFORE):
        vault.write(text, speaker="Maya", session_id=f"s{n}", now=T + timedelta(days=30 * n))
    for n, text in enumerate(FILLER):
        vault.write(text, speaker="Maya", session_id=f"f{n}", now=T + timedelta(days=8 * n))
    vault.write(ENDED, speaker="Maya", session_id="s9", now=T + timedelta(days=120))


def texts(vault: MemVault, question: str, k: int = 8) -> list[str]:
    return [h.text for h in vault.recall(question, k=k)]


def test_an_ending_leads_what_it_ended_and_loses_nothing(tmp_path: Path) -> None:
    clock = FixedClock(NOW)
    with MemVault.open(tmp_path / "off.db", clock=clock, recall={"group_endings": False}) as off:
        history(off)
        before = texts(off, "Does Maya have a dog?")
    assert before.index(BEFORE[0]) < before.index(ENDED)  # by relevance, the adoption leads
    with MemVault.open(tmp_path / "on.db", clock=clock) as vault:
        history(vault)
        hits = vault.recall("Does Maya have a dog?", k=8)
        now = [h.text for h in hits]
        assert now[0] == ENDED
        assert set(BEFORE) <= set(now)  # nothing lost: the same memories, the ending first
        notes = {h.text: h.explanation.factors.currency_note or "" for h in hits if h.explanation}
        assert "ended: it leads" in notes[ENDED]
        assert "ended later" in notes[BEFORE[0]] and "passed away" in notes[BEFORE[0]]
        past = texts(vault, "When did Maya adopt her puppy?", k=3)
        assert past[0] == BEFORE[0]  # a question about the past: the ending does not lead


def test_a_denied_or_supposed_ending_ends_nothing(tmp_path: Path) -> None:
    clock = FixedClock(NOW)
    with MemVault.open(tmp_path / "v.db", clock=clock) as vault:
        for n, text in enumerate(BEFORE):
            vault.write(text, speaker="Maya", session_id=f"s{n}", now=T + timedelta(days=30 * n))
        vault.write(
            "If Biscuit ever passed away I'd be heartbroken.",
            speaker="Maya",
            now=T + timedelta(days=120),
        )
        hits = vault.recall("Does Maya have a dog?", k=8)
        assert hits[0].text == BEFORE[0]
        assert not any(
            "ended" in (h.explanation.factors.currency_note or "") for h in hits if h.explanation
        )
