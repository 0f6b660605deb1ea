"""Feedback and access: what callers say about memories after recall, as one service the
SDK, the CLI and the API share.

- ``access``: the memory was put into a prompt (counts; the access boost, the
  anti-stickiness and the half-life stretch read it); an episode moves back to the hot tier,
  keeping its digest if it has one (compression is one way);
- ``reinforce`` / ``correct``: the user confirmed it helped (it resists decay; an episode
  moves back to hot, as above);
- ``up`` / ``down``: importance ±0.1 (clamped to 0..1);
- ``incorrect``: a fact is retired (vault time: ``expired_at``), an episode's importance
  drops to 0.

Every id is checked before anything changes; all of one call is one transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Literal

from memvault.errors import InvalidInputError, NotFoundError
from memvault.kg.model import Episode, Fact, Tier
from memvault.kg.store import Batch, RecordStore

Signal = Literal["access", "reinforce", "up", "down", "correct", "incorrect"]
SIGNALS: tuple[str, ...] = ("access", "reinforce", "up", "down", "correct", "incorrect")


class Feedback:
    def __init__(self, store: RecordStore):
        self.store = store

    def apply(self, namespace: str, ids: Iterable[str], signal: str, at: datetime) -> list[str]:
        """Apply ``signal`` to every memory of ``ids`` (episodes or facts); the ids changed."""
        if signal not in SIGNALS:
            raise InvalidInputError(
                f"unknown signal {signal!r}", field="signal", hint="one of " + ", ".join(SIGNALS)
            )
        wanted = list(dict.fromkeys(ids))
        with self.store.transaction():
            records = self._records(namespace, wanted)
            for r in records:
                _judge(r, signal, at)
            self.store.apply(
                Batch(
                    namespace=namespace,
                    episodes=[r for r in records if isinstance(r, Episode)],
                    facts=[r for r in records if isinstance(r, Fact)],
                )
            )
        return [r.id for r in records]

    def record(self, namespace: str, record_id: str) -> Episode | Fact:
        return self._records(namespace, [record_id])[0]

    def _records(self, namespace: str, ids: Sequence[str]) -> list[Episode | Fact]:
        found: dict[str, Episode | Fact] = {
            e.id: e for e in self.store.get_episodes(namespace, ids)
        }
        found |= {f.id: f for f in self.store.get_facts(namespace, ids)}
        missing = [i for i in ids if i not in found]
        if missing:
            raise NotFoundError("memory", missing[0], namespace)
        return [found[i] for i in ids]


def _judge(r: Episode | Fact, signal: str, at: datetime) -> None:
    if signal in ("access", "reinforce", "correct") and isinstance(r, Episode):
        r.tier = Tier.HOT  # used again: warmer, but a digest stays a digest
    if signal == "access":
        r.access_count += 1
        r.last_accessed = at
    elif signal in ("reinforce", "correct"):
        r.reinforced_count += 1
        r.last_reinforced_at = at
    elif signal == "incorrect":
        if isinstance(r, Fact):
            r.expired_at = at
        else:
            r.importance = 0.0
    else:
        step = 0.1 if signal == "up" else -0.1
        r.importance = min(max(r.importance + step, 0.0), 1.0)
