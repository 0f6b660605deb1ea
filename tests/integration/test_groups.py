"""Currency by meaning, end to end with the real embedder: a change said in a held-out
family's words (bench/currency_data.py family 3, the new value beside the old one; no rule
knows it) ranks first for a question about now, and only because the two statements mean
the same thing; a question about the past keeps the order; two pets still both come back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from memvault import FixedClock, MemVault

T = datetime(2025, 3, 1, tzinfo=UTC)
OLD = "Being keto, I struggle with restaurant menus."
NEW = "Dropped being keto; vegan suits me much better."
FILLER = [
    "Work had way too many meetings again.",
    "Could you recommend a thriller for the weekend?",
    "The office plants are dying, nobody waters them.",
    "I finally found a good bakery close to home.",
]


def history(vault: MemVault) -> None:
    vault.write(OLD, speaker="Vera", session_id="s1", now=T)
    for n, text in enumerate(FILLER, start=2):
        vault.write(text, speaker="Vera", session_id=f"s{n}", now=T + timedelta(days=10 * n))
    vault.write(NEW, speaker="Vera", session_id="s9", now=T + timedelta(days=90))
    vault.write("There's a hamster in my life now: Nugget.", speaker="Vera", now=T)
    vault.write("Bolt the tortoise moved in with us as well.", speaker="Vera", now=T)


def order(vault: MemVault, question: str) -> list[str]:
    return [h.text for h in vault.recall(question, k=6)]


def test_the_newest_of_statements_meaning_the_same_thing_comes_first(tmp_path: Path) -> None:
    clock = FixedClock(T + timedelta(days=120))
    with MemVault.open(tmp_path / "off.db", clock=clock, recall={"group_cosine": 0}) as off:
        history(off)
        before = order(off, "What kind of food does Vera eat?")
    assert before.index(OLD) < before.index(NEW)  # by relevance alone the old one leads
    with MemVault.open(tmp_path / "on.db", clock=clock) as vault:
        history(vault)
        now = vault.recall("What kind of food does Vera eat?", k=6)
        texts = [h.text for h in now]
        assert texts.index(NEW) < texts.index(OLD)
        assert set(texts[:3]) >= {NEW, OLD}  # the same memories, in another order
        hit = now[texts.index(NEW)]
        assert "newest first" in (hit.explanation.factors.currency_note or "")
        past = order(vault, "What did Vera eat last year?")
        assert past.index(OLD) < past.index(NEW)  # about the past: no reordering
        pets = order(vault, "What animals does Vera have at home?")
        assert {t for t in pets if "hamster" in t or "tortoise" in t} == {
            "There's a hamster in my life now: Nugget.",
            "Bolt the tortoise moved in with us as well.",
        }
