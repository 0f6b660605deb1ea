"""Duplicates across namespaces, for ``dream --all`` (seed 000's system-wide mode pays special
attention to cross-project duplicates).

A dream judges one namespace at a time and never merges across namespaces: two projects may
hold the same note for good reasons, and a namespace is also a boundary of access (API keys
are per namespace). So this only *reports*: pairs of live memories in different namespaces
with the same words (after case and spacing) or nearly the same meaning (cosine of their
vectors at or above ``threshold``), for an operator to decide. Nothing is changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from memvault.kg.model import Episode
from memvault.kg.store import Store

THRESHOLD = 0.97  # near-identical meaning; MiniLM puts paraphrases of one fact at ~0.85-0.95
PER_NAMESPACE = 20_000  # live episodes read per namespace (the newest); the report says so
MIN_CHARS = 20  # "ok", "thanks": the same everywhere and nobody's duplicate


@dataclass(frozen=True)
class Pair:
    a: Episode
    b: Episode
    cosine: float
    same_words: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "a": {"namespace": self.a.namespace, "id": self.a.id, "text": self.a.content[:200]},
            "b": {"namespace": self.b.namespace, "id": self.b.id, "text": self.b.content[:200]},
            "cosine": round(self.cosine, 4),
            "same_words": self.same_words,
        }


def _words(text: str) -> str:
    return re.sub(r"\s+", " ", text.casefold()).strip()


def _live(store: Store, namespace: str) -> list[Episode]:
    found: list[Episode] = []
    offset = 0
    while len(found) < PER_NAMESPACE:
        page = store.list_episodes(namespace, limit=1000, offset=offset)
        if not page:
            break
        found += [e for e in page if e.expired_at is None and len(e.content) >= MIN_CHARS]
        offset += len(page)
    return found[-PER_NAMESPACE:]


def cross_duplicates(
    store: Store, namespaces: list[str], *, threshold: float = THRESHOLD, limit: int = 200
) -> dict[str, Any]:
    """Pairs of live memories in two different namespaces that say the same thing, most
    similar first (at most ``limit``), with how many memories were compared."""
    if len(namespaces) < 2:
        return {"namespaces": len(namespaces), "compared": 0, "pairs": []}
    live = {ns: _live(store, ns) for ns in namespaces}
    matrices: dict[str, tuple[list[Episode], np.ndarray]] = {}
    for ns, episodes in live.items():
        vectors = store.get_vectors(ns, "episode", [e.id for e in episodes])
        kept = [e for e in episodes if e.id in vectors]
        if kept:
            matrices[ns] = (kept, np.stack([vectors[e.id] for e in kept]).astype(np.float32))
    pairs: dict[tuple[str, str], Pair] = {}
    by_words: dict[str, dict[str, Episode]] = {}  # words → namespace → its first such memory
    for episodes in live.values():
        for e in episodes:
            by_words.setdefault(_words(e.content), {}).setdefault(e.namespace, e)
    for group in by_words.values():
        firsts = [group[ns] for ns in sorted(group)]
        for i, a in enumerate(firsts):
            for b in firsts[i + 1 :]:
                pairs[(a.id, b.id)] = Pair(a, b, 1.0, True)
    names = sorted(matrices)
    for i, left in enumerate(names):
        a_eps, a_m = matrices[left]
        for right in names[i + 1 :]:
            b_eps, b_m = matrices[right]
            sims = a_m @ b_m.T
            for r, c in zip(*np.nonzero(sims >= threshold), strict=True):
                a, b = a_eps[int(r)], b_eps[int(c)]
                if (a.id, b.id) not in pairs and (b.id, a.id) not in pairs:
                    same = _words(a.content) == _words(b.content)
                    pairs[(a.id, b.id)] = Pair(a, b, float(sims[r, c]), same)
    ranked = sorted(pairs.values(), key=lambda p: (-p.cosine, p.a.namespace, p.a.id))
    return {
        "namespaces": len(namespaces),
        "compared": sum(len(v) for v in live.values()),
        "threshold": threshold,
        "pairs": [p.as_dict() for p in ranked[:limit]],
        "more": max(0, len(ranked) - limit),
    }
