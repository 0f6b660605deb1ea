"""A question asking for an amount (memvault.recall.fusion.amount_lift): the turn that says a
number comes before turns that only share its topic, its explanation says why, and switched
off by name (``channel_weights.amount``) only that part goes."""

from __future__ import annotations

import pytest

from memvault import MemVault


def test_asked_how_many_a_turn_that_says_a_number_comes_first(vault: MemVault) -> None:
    said = vault.write("Planning a dinner party, a vegetarian lasagne for twelve guests.")
    plain = vault.write("Planning a dinner party, a vegetarian lasagne with a green salad.")
    for plant in ("basil", "mint", "thyme", "parsley", "chives", "sage"):
        vault.write(f"Any tips on keeping {plant} alive on the balcony?")
    question = "How many people are coming to the dinner party?"  # no word of the number's
    hits = vault.recall(question, k=3)
    assert hits[0].id == said.id
    lifted = hits[0].explanation
    assert lifted is not None and lifted.signals["amount"] == 0.3
    assert "says a number, asked how many: × 1.30" in lifted.text()
    others = [h for h in hits if h.id != said.id]
    assert all(h.explanation is None or "amount" not in h.explanation.signals for h in others)
    vault.recaller.s.channel_weights["amount"] = 0.0  # off by name: only its part goes
    off = {h.id: h for h in vault.recall(question, k=3)}
    assert all(h.explanation is None or "amount" not in h.explanation.signals for h in off.values())
    on = {h.id: h for h in hits}  # the lead over the turn without a number shrinks by 1.3
    lead_on, lead_off = (x[said.id].score / x[plain.id].score for x in (on, off))
    assert lead_on == pytest.approx(1.3 * lead_off, rel=0.01)
    vault.recaller.s.channel_weights["amount"] = 0.3  # a count of occurrences is not lifted
    count = vault.recall("How many times did I plan a dinner party?", k=3)
    assert all(h.explanation is None or "amount" not in h.explanation.signals for h in count)
