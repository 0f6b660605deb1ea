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

Windows are whole days and read the diary's complete daily snapshots (memvault.profile.diary)
where they exist. **Topics**: the attention of the entities of each community of the last
dream's partition (communities of one are left out), summed.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from memvault.changes.docs import COMMUNITIES
from memvault.config import ProfileSettings
from memvault.kg.store import Store
from memvault.profile.diary import attention


def _topics(store: Store, namespace: str) -> dict[str, str]:
    """Entity name → the label of its community in the last dream's partition (its title
    when one was written, else its three most mentioned members)."""
    found = store.list_docs(namespace, COMMUNITIES, limit=1)
    if not found:
        return {}
    communities = found[0].body.get("communities", [])
    ids = [i for c in communities if c.get("size", 0) > 1 for i in c.get("members", [])]
    names = {e.id: e.name for e in store.get_entities(namespace, ids)}
    out: dict[str, str] = {}
    for c in communities:
        if c.get("size", 0) > 1:
            label = c.get("title") or " / ".join(c.get("top", [])[:3])
            out.update({names[i]: label for i in c.get("members", []) if i in names})
    return out


def profile(store: Store, namespace: str, now: datetime, s: ProfileSettings) -> dict[str, Any]:
    """Windows of whole days ending today (a window of 7 days: today and the six before). Days
    with a complete diary snapshot are read from it; the others (today, and days no dream
    or nightly check covered) are counted from the records in one pass."""
    longest = max(s.windows)
    today = now.astimezone(UTC).date()
    days = {today - timedelta(days=n) for n in range(longest)}
    per_day = attention(store, namespace, days)
    by_name = {n.lower(): n for m, _, _ in per_day.values() for n in m}
    topic_of = _topics(store, namespace)
    windows: dict[str, Any] = {}
    counts: dict[int, Counter[str]] = {}
    for width in sorted(s.windows):
        c: Counter[str] = Counter()
        intents: Counter[str] = Counter()
        for d in (today - timedelta(days=n) for n in range(width)):
            mentions, asked, asked_intents = per_day[d]
            c.update(mentions)
            c.update({by_name.get(n.lower(), n): k for n, k in asked.items()})
            intents.update(asked_intents)
        counts[width] = c
        topics: Counter[str] = Counter()
        for name, n in c.items():
            if name in topic_of:
                topics[topic_of[name]] += n
        windows[str(width)] = {
            "entities": c.most_common(s.top),
            "topics": topics.most_common(s.top),
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
    # nothing at all lately (no entity written or asked after, no question): a pause, not
    # everything cooling at once
    quiet = not short and not windows[str(min(s.windows))]["recalls"]
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
