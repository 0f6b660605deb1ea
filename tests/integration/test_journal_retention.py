"""Every run's journal is released after ``dream.undo_days``: the records as they were before
the run leave the store and undo says plainly that it can no longer restore them. A run with
a review item still pending keeps its journal (an approval must stay undoable), and an
approval restarts the clock."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from memvault import FixedClock, MemVault
from memvault.changes.docs import JOURNAL, RUN
from memvault.embed import HashingEmbedder
from memvault.errors import InvalidInputError
from tests.integration.test_dream import LATER, seed


def _vault(path: Path, clock: FixedClock) -> MemVault:
    return MemVault.open(path, embedder=HashingEmbedder(), clock=clock, dream={"undo_days": 90})


def _run(vault: MemVault, run_id: str) -> dict:
    (doc,) = vault.store.get_docs("default", RUN, [run_id])
    return doc.body


def test_a_run_older_than_undo_days_is_released_and_undo_refuses(tmp_path: Path) -> None:
    clock = FixedClock(LATER)
    with _vault(tmp_path / "v.db", clock) as vault:
        seed(vault)
        first = vault.dream(apply=True)
        (item,) = vault.review_items()
        vault.reject(item["id"])  # nothing pending: the clock runs from the run
        journal = list(_run(vault, first.run_id)["journal"])
        assert journal and len(vault.store.get_docs("default", JOURNAL, journal)) == len(journal)

        clock.set(LATER + timedelta(days=60))  # inside the window: kept
        vault.dream(apply=True, force=True)
        assert "journal_released_at" not in _run(vault, first.run_id)

        clock.set(LATER + timedelta(days=91))
        second = vault.dream(apply=True, force=True)
        body = _run(vault, first.run_id)
        assert body["journal_released_at"].startswith(
            (LATER + timedelta(days=91)).date().isoformat()
        )
        assert vault.store.get_docs("default", JOURNAL, journal) == []
        with pytest.raises(InvalidInputError, match="can no longer be undone") as err:
            vault.undo_dream(first.run_id)
        assert "dream.undo_days" in str(err.value)
        assert second.run_id is not None
        vault.undo_dream(second.run_id)  # a recent run still undoes


def test_a_pending_review_item_keeps_the_journal_and_an_approval_restarts_the_clock(
    tmp_path: Path,
) -> None:
    clock = FixedClock(LATER)
    with _vault(tmp_path / "v.db", clock) as vault:
        seed(vault)
        first = vault.dream(apply=True)
        (item,) = vault.review_items()  # left pending for months
        clock.set(LATER + timedelta(days=120))
        vault.dream(apply=True, force=True)
        assert "journal_released_at" not in _run(vault, first.run_id)
        vault.approve(item["id"])  # journaled with its run, today
        clock.set(LATER + timedelta(days=150))
        vault.dream(apply=True, force=True)
        assert "journal_released_at" not in _run(vault, first.run_id)
        # later dreams touched some of its records: undo asks to be forced, and can be
        assert vault.undo_dream(first.run_id, force=True) > 0
