"""Recall reads once (issue 29): a recall is at most five calls of the store port, the
recall log's write included, whatever the question asks; the namespace's state comes with
the candidates, so a write between two recalls is seen without another call."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from memvault import MemVault
from memvault.kg.store import Store

T = datetime(2025, 1, 10, 9, tzinfo=UTC)
NOW = T + timedelta(days=200)
HISTORY = [
    (0, "I live in Berlin and I work at Helio Labs."),
    (0, "My manager is Tobias Klein."),
    (60, "Big news: I moved to Lisbon last week!"),
    (60, "I still work at Helio Labs, remotely now."),
    (120, "My manager is Ana Duarte since the reorg."),
    (150, "I love surfing in Ericeira on weekends."),
]


class Counting:
    """The store, counting the calls made to it from outside (what an adapter does inside
    one call is its own business)."""

    def __init__(self, inner: Store):
        self.inner, self.calls = inner, Counter[str]()

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kw: Any) -> Any:
            self.calls[name] += 1
            return attr(*args, **kw)

        return call


def counted(vault: MemVault) -> Counting:
    proxy = Counting(vault.store)
    for holder in (vault, vault.c, vault.recaller, vault.recaller.currency):
        holder.store = proxy  # type: ignore[union-attr]
    return proxy


def written(vault: MemVault) -> MemVault:
    for days, text in HISTORY:
        vault.write(text, namespace="maya", speaker="Maya", now=T + timedelta(days=days))
    result = vault.dream(namespace="maya", apply=True, force=True, now=NOW)
    assert any(e.replaced_by for e in vault.episodes(namespace="maya"))  # a move was linked
    assert result is not None
    return vault


def test_a_recall_is_at_most_five_store_calls(vault: MemVault) -> None:
    written(vault)
    ask: Callable[..., Any] = vault.recall
    ask("Where does Maya live?", namespace="maya", now=NOW)  # the namespace's view is held
    proxy = counted(vault)
    for question, as_of in [
        ("Where does Maya live?", None),
        ("Who is her manager now?", None),
        ("Where did Maya live?", T + timedelta(days=30)),
        ("How has her manager changed over time?", None),
        ("surfing Ericeira", None),
    ]:
        proxy.calls.clear()
        hits = ask(question, namespace="maya", now=NOW, as_of=as_of)
        assert hits, question
        assert sum(proxy.calls.values()) <= 5, (question, dict(proxy.calls))
        assert proxy.calls["recall_read"] == 1, question


def test_a_write_between_recalls_is_seen_by_the_next_read(vault: MemVault) -> None:
    written(vault)
    first = vault.recall("Who is Rui?", namespace="maya", now=NOW)
    assert first.vectors_pending == 0
    vault.write("Rui Santos leads the platform guild.", namespace="maya", speaker="Maya", now=NOW)
    proxy = counted(vault)
    hits = vault.recall("Who is Rui?", namespace="maya", now=NOW)
    assert "Rui Santos" in hits[0].text
    assert proxy.calls["recall_read"] == 1  # the new watermark came with the candidates


def test_a_new_speaker_named_in_the_question_is_left_out_of_its_vector(
    vault: MemVault,
) -> None:
    written(vault)
    vault.recall("Where does Maya live?", namespace="maya", now=NOW)
    vault.write("Lisbon suits you, Maya!", namespace="maya", speaker="Tomás", now=NOW)
    proxy = counted(vault)
    vault.recall("What did Tomás say?", namespace="maya", now=NOW)
    # the first read named a speaker the question holds: the vector without him, read again
    assert proxy.calls["recall_read"] == 2
    assert "Tomás" in vault.recaller._views["maya"].speakers
