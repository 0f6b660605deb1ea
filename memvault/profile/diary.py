"""The daily snapshot, the diary page: once per day per namespace, what was written and asked
that day (docs/gaps.md#the-diary).

A snapshot (document ``diary``, id the date) holds the day's counts (episodes that happened,
facts learned, recalls asked), the intents asked by frequency, every entity mentioned with its
count (the profile's windows sum these instead of re-reading the raw records), the entities
asked after, the top entities by PageRank over the day's co-mention graph (two entities
mentioned in one episode are linked), and the delta against the day before (entities that
appeared, that disappeared). It is computed only from that day's records, so recomputing a
past day gives the same page. The dream writes today's (partial) and yesterday's (complete)
snapshots after it applies; the nightly check does it for namespaces that did not dream.
Snapshots are never touched by the dream's pruning; their own retention is
``profile.diary_retention_days``, and the recall log's is ``profile.log_retention_days``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from memvault.clock import ensure_utc
from memvault.config import ProfileSettings
from memvault.errors import InvalidInputError
from memvault.kg.centrality import personalized_pagerank
from memvault.kg.model import Entity, Episode, Fact, Mention
from memvault.kg.store import Batch, Doc, Store
from memvault.profile.recall_log import LOG, intent, names, relabel

DIARY = "diary"


def parse_day(value: str) -> date:
    """A diary day from YYYY-MM-DD, inside the range memvault holds (a page reads the day
    before, so 0001-01-01 would overflow)."""
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise InvalidInputError(
            f"is not a date: {value!r}", field="date", hint="use YYYY-MM-DD, e.g. 2025-06-15"
        ) from None
    ensure_utc(_start(day), "date")
    return day


def _start(day: date) -> datetime:
    return datetime.combine(day, time(0), tzinfo=UTC)


def day_counts(store: Store, namespace: str, days: set[date]) -> dict[date, dict[str, Any]]:
    """Per day: episodes, facts, recalls, entity mentions, asked names and intents — one pass
    over the namespace's records and recall log for all ``days``."""
    out: dict[date, dict[str, Any]] = {
        d: {
            "episodes": 0,
            "facts": 0,
            "recalls": 0,
            "mentions": Counter(),
            "asked": Counter(),
            "intents": Counter(),
            "pairs": Counter(),
        }
        for d in days
    }
    if not days:
        return out
    first, last = _start(min(days)), _start(max(days)) + timedelta(days=1)
    episode_day: dict[str, date] = {}
    by_episode: dict[str, set[str]] = defaultdict(set)
    names_of: dict[str, str] = {}
    for r in store.iter_records(namespace):
        if isinstance(r, Episode):
            if r.expired_at is None and first <= r.occurred_at < last:
                d = r.occurred_at.astimezone(UTC).date()
                if d in out:
                    episode_day[r.id] = d
                    out[d]["episodes"] += 1
        elif isinstance(r, Fact):
            d = r.created_at.astimezone(UTC).date()
            if d in out:
                out[d]["facts"] += 1
        elif isinstance(r, Mention):
            by_episode[r.episode_id].add(r.entity_id)
        elif isinstance(r, Entity):
            names_of[r.id] = r.name
    for episode_id, d in episode_day.items():
        here = sorted(names_of[i] for i in by_episode.get(episode_id, ()) if i in names_of)
        out[d]["mentions"].update(here)
        out[d]["pairs"].update((a, b) for n, a in enumerate(here) for b in here[n + 1 :])
    for doc in store.list_docs(namespace, LOG, limit=1_000_000):
        if doc.created_at is None or not first <= doc.created_at < last:
            continue
        d = doc.created_at.astimezone(UTC).date()
        if d in out:
            query = str(doc.body.get("query", ""))
            out[d]["recalls"] += 1
            out[d]["intents"][doc.body.get("intent") or intent(query)] += 1
            out[d]["asked"].update(names(query))  # read again: older logs kept openers
    return out


def _page(day: date, today: dict[str, Any], before: dict[str, Any], top: int) -> dict[str, Any]:
    mentions: Counter[str] = today["mentions"]
    nodes = sorted(mentions)
    edges = [(a, b, float(n)) for (a, b), n in sorted(today["pairs"].items())]
    central = personalized_pagerank(nodes, edges, [], top=top)
    now_set, then_set = set(mentions), set(before["mentions"])
    return {
        "date": day.isoformat(),
        "counts": {k: today[k] for k in ("episodes", "facts", "recalls")},
        "intents": [{"intent": k, "count": n} for k, n in today["intents"].most_common(top)],
        "entities": [
            {"name": n, "centrality": round(score, 4), "mentions": mentions[n]}
            for n, score in central
        ],
        "mentions": dict(sorted(mentions.items())),
        "asked": dict(sorted(today["asked"].items())),
        "delta": {
            "appeared": sorted(now_set - then_set)[:top],
            "disappeared": sorted(then_set - now_set)[:top],
        },
    }


def compute(store: Store, namespace: str, day: date, top: int) -> dict[str, Any]:
    """One day's page, from that day's records (and the day before, for the delta)."""
    counts = day_counts(store, namespace, {day, day - timedelta(days=1)})
    return _page(day, counts[day], counts[day - timedelta(days=1)], top)


def write_snapshots(
    store: Store, namespace: str, now: datetime, s: ProfileSettings, llm: Any = None
) -> list[str]:
    """Today's snapshot (partial: the day is not over) and yesterday's (complete) unless it
    is already complete; drops snapshots and recall-log entries past their retention; with a
    model configured, it first labels the intents of those days' questions (off the request
    path). Quiet: it moves no watermark. The dates written."""
    today = now.astimezone(UTC).date()
    yesterday = today - timedelta(days=1)
    done = store.get_docs(namespace, DIARY, [yesterday.isoformat()])
    days = [today] if done and done[0].status == "complete" else [yesterday, today]
    if llm is not None:
        relabel(store, namespace, llm, _start(min(days)))
    counts = day_counts(store, namespace, {d - timedelta(days=n) for d in days for n in (0, 1)})
    docs = [
        Doc(
            kind=DIARY,
            id=d.isoformat(),
            body=_page(d, counts[d], counts[d - timedelta(days=1)], s.top),
            status="partial" if d == today else "complete",
            created_at=_start(d),
        )
        for d in days
    ]
    dropped = _expired(store, namespace, now, s)
    store.apply(Batch(namespace=namespace, docs=docs, drop_docs=dropped, quiet=True))
    return [d.id for d in docs]


def _expired(
    store: Store, namespace: str, now: datetime, s: ProfileSettings
) -> list[tuple[str, str]]:
    """Snapshots of days before today − ``diary_retention_days``; log entries older than
    ``log_retention_days``."""
    midnight = _start(now.astimezone(UTC).date())
    limits = ((DIARY, midnight - timedelta(days=s.diary_retention_days)),
              (LOG, now - timedelta(days=s.log_retention_days)))  # fmt: skip
    return [
        (kind, d.id)
        for kind, cutoff in limits
        for d in store.list_docs(namespace, kind, limit=1_000_000)
        if d.created_at is not None and d.created_at < cutoff
    ]


def diary(
    store: Store, namespace: str, day: date, now: datetime, s: ProfileSettings
) -> dict[str, Any]:
    """The page of ``day``: the stored snapshot when there is one, else computed now (and
    labelled so)."""
    if day > now.astimezone(UTC).date():
        raise InvalidInputError(f"{day.isoformat()} has not happened yet", field="date")
    stored = store.get_docs(namespace, DIARY, [day.isoformat()])
    if stored:
        return stored[0].body | {"snapshot": stored[0].status}
    return compute(store, namespace, day, s.top) | {"snapshot": "computed now (none stored)"}


def stored_days(store: Store, namespace: str, since: date) -> dict[date, dict[str, Any]]:
    """Complete snapshots from ``since`` on: what the profile's windows read."""
    out: dict[date, dict[str, Any]] = {}
    for d in store.list_docs(namespace, DIARY, status="complete", limit=1_000_000):
        day = date.fromisoformat(d.id)
        if day >= since:
            out[day] = d.body
    return out


Attention = tuple[Counter[str], Counter[str], Counter[str]]  # mentions, names asked, intents


def attention(store: Store, namespace: str, days: set[date]) -> dict[date, Attention]:
    """Per day: entity mentions, names asked after and intents asked — from the complete
    snapshot of the day when there is one, else counted from the records (one pass for all
    the days without one)."""
    stored = stored_days(store, namespace, min(days)) if days else {}
    counted = day_counts(store, namespace, days - set(stored))
    out: dict[date, Attention] = {}
    for d in days:
        if d in stored:
            body = stored[d]
            out[d] = (
                Counter(body.get("mentions", {})),
                Counter(body.get("asked", {})),
                Counter({i["intent"]: i["count"] for i in body.get("intents", [])}),
            )
        else:
            row = counted[d]
            out[d] = (row["mentions"], row["asked"], row["intents"])
    return out


def render(page: dict[str, Any]) -> str:
    """A short readable page: "today's you"."""
    c = page["counts"]
    lines = [
        f"{page['date']}: {c['episodes']} memories, {c['facts']} facts learned, "
        f"{c['recalls']} questions ({page.get('snapshot', '')})"
    ]
    if page["entities"]:
        lines.append("on your mind: " + ", ".join(e["name"] for e in page["entities"]))
    if page["intents"]:
        lines.append(
            "you asked: " + ", ".join(f"{i['intent']} ×{i['count']}" for i in page["intents"])
        )
    if page["asked"]:
        lines.append("asked about: " + ", ".join(sorted(page["asked"])))
    delta = page["delta"]
    if delta["appeared"]:
        lines.append("new since the day before: " + ", ".join(delta["appeared"]))
    if delta["disappeared"]:
        lines.append("not mentioned since the day before: " + ", ".join(delta["disappeared"]))
    if len(lines) == 1:
        lines.append("a quiet day: nothing written or asked.")
    return "\n".join(lines)
