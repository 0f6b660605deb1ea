"""The interest profile: what a namespace has been about over rolling windows (7, 30 and 90
days by default), from what was written (entities the episodes mention) and what was asked
(the names and intents of the recall log), with what is rising and what is cooling
(docs/gaps.md#the-interest-profile).

- **Attention** of an entity in a window: its mentions in episodes that happened in the window
  plus the recalls that named it.
- **Rising**: in the shortest window its share of attention is at least ``rise`` (2) times its
  share in the longest, with at least ``min_count`` (2) in the shortest.
- **Cooling**: at least ``min_count`` in the longest window, none in the shortest, while the
  shortest window has attention for something else (a week with nothing at all is a pause,
  ``quiet``, not everything cooling).

Computed on demand from the store; topics (communities) and the daily diary that would read
snapshots instead are not built yet.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from memvault.config import ProfileSettings
from memvault.kg.model import Entity, Episode, Mention
from memvault.kg.store import Store
from memvault.profile.recall_log import LOG


def profile(store: Store, namespace: str, now: datetime, s: ProfileSettings) -> dict[str, Any]:
    longest = max(s.windows)
    since = now - timedelta(days=longest)
    names: dict[str, str] = {}
    when: dict[str, datetime] = {}
    mentions: list[tuple[str, str]] = []  # (episode id, entity id)
    for r in store.iter_records(namespace):
        if isinstance(r, Episode):
            if r.expired_at is None and since <= r.occurred_at <= now:
                when[r.id] = r.occurred_at
        elif isinstance(r, Mention):
            mentions.append((r.episode_id, r.entity_id))
        elif isinstance(r, Entity):
            names[r.id] = r.name
    by_name = {v.lower(): v for v in names.values()}
    asked = [
        d
        for d in store.list_docs(namespace, LOG, limit=1_000_000)
        if d.created_at is not None and since <= d.created_at <= now
    ]
    windows: dict[str, Any] = {}
    counts: dict[int, Counter[str]] = {}
    for days in sorted(s.windows):
        start = now - timedelta(days=days)
        c: Counter[str] = Counter()
        for episode_id, entity_id in mentions:
            at = when.get(episode_id)
            if at is not None and at >= start and entity_id in names:
                c[names[entity_id]] += 1
        intents: Counter[str] = Counter()
        for d in asked:
            if d.created_at is not None and d.created_at >= start:
                intents[d.body.get("intent", "lookup")] += 1
                for n in d.body.get("names", []):
                    c[by_name.get(n.lower(), n)] += 1
        counts[days] = c
        windows[str(days)] = {
            "entities": c.most_common(s.top),
            "intents": intents.most_common(),
            "recalls": sum(intents.values()),
        }
    short, long_ = counts[min(s.windows)], counts[longest]
    total_short, total_long = sum(short.values()) or 1, sum(long_.values()) or 1
    rising = sorted(
        (
            name
            for name, n in short.items()
            if n >= s.min_count and n / total_short >= s.rise * long_[name] / total_long
        ),
        key=lambda name: -short[name],
    )
    cooling = sorted(
        (name for name, n in long_.items() if n >= s.min_count and short[name] == 0),
        key=lambda name: -long_[name],
    )
    quiet = not short  # nothing at all lately: a pause, not everything cooling at once
    if quiet:
        cooling = []
    return {
        "namespace": namespace,
        "now": now.isoformat(),
        "windows": windows,
        "rising": rising[: s.top],
        "cooling": cooling[: s.top],
        "quiet": quiet,
    }
