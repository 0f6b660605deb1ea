"""A journal entry keeps the record before a change whole and after it as what changed
(memvault.changes.docs): read back, the state after is exactly what the change wrote, and
undo's check tells a record left as the change left it from one changed since."""

from __future__ import annotations

from memvault.changes.docs import after_of, as_left, journal_entry

BEFORE = {"id": "e1", "content": "a long original text", "tier": "hot", "metadata": {}}


def test_the_state_after_reads_back_exactly_and_only_what_changed_is_kept() -> None:
    after = {**BEFORE, "tier": "warm", "cooldown_until": None}  # a new key, set to None
    entry = journal_entry("episode", "e1", "tiers.move", BEFORE, after)
    assert entry["after_changes"] == {"tier": "warm", "cooldown_until": None}
    assert "after" not in entry and after_of(entry) == after
    assert as_left(after, entry) and not as_left(BEFORE, entry)


def test_a_creation_a_deletion_and_an_old_journal_keep_the_state_after_whole() -> None:
    created = journal_entry("episode", "e1", "consolidate.add", None, BEFORE)
    deleted = journal_entry("episode", "e1", "consolidate.merge_episode", BEFORE, None)
    assert created["after"] == BEFORE and deleted["after"] is None
    old = {"kind": "episode", "id": "e1", "op": "x", "before": BEFORE, "after": BEFORE}
    assert after_of(old) == BEFORE and as_left(BEFORE, old)


def test_a_tier_move_keeps_its_digest_cues_as_their_hash() -> None:
    digest = {"level": "digest", "cues": "a long original"}
    after = {**BEFORE, "content": "text", "metadata": {"digest": digest}}
    entry = journal_entry("episode", "e1", "tiers.digest", BEFORE, after)
    kept = after_of(entry)
    assert kept is not None and "cues" not in kept["metadata"]["digest"]
    assert as_left(after, entry)  # the record as the move left it: its cues hash the same
    changed = {**after, "metadata": {"digest": {**digest, "cues": "other words"}}}
    assert not as_left(changed, entry)
    merged = journal_entry("episode", "e1", "consolidate.merge_episode", BEFORE, after)
    assert after_of(merged) == after  # only a tier move's cues are hashed
