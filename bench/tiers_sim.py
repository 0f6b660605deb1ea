"""Six simulated months with and without tiering: store size against recall.

One agent's vault is driven day by day for ``--days`` (180): each day it writes ``--per-day``
episodes (short turns, tool outputs of 1-5k characters, notes full of small talk and log
lines, and now and then a
planted *useful* memory: a project's detail, as the first or a middle sentence of a note),
recalls some of the useful memories the way an agent would (its own words, and
``record_access`` and ``reinforce`` when the planted note comes back in the top 5), and
dreams once a week
(``apply``, the default policy). The same seed drives two vaults: ``dream.tiers.enabled``
false (the baseline) and true.

At the end it prints, for each: live episodes still holding their full text and the
characters of their text (and of every episode's, retired ones awaiting deletion too), the
database file's bytes after ``VACUUM``, and recall@10 on held-out questions (other words than
the agent's) about the still-relevant useful memories (used or written in the last 60 days).
Questions about useful memories nobody used for months are reported apart: tiering may
compress them, and the figure says how much that costs.

    .venv/bin/python bench/tiers_sim.py [--days 180] [--per-day 30] [--embedder hashing]

The default embedder is the hashing one (fast; lexical); ``--embedder default`` uses the
vault's configured one (MiniLM), slower.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder

T0 = datetime(2026, 1, 5, 9, tzinfo=UTC)
ADJ = "amber brisk cobalt dusty eager frosty gentle hollow ivory jolly keen lunar misty noble"
ANIMAL = "heron otter lynx finch badger marten osprey ibis gecko walrus tapir egret bison crane"
THINGS = [
    ("release window", "the release window of {p} is {v}", "When can {p} be released?"),
    ("on-call owner", "the on-call owner for {p} is {v}", "Who is on call for {p}?"),
    ("database region", "{p} keeps its database in {v}", "Where does {p} store its data?"),
    ("budget code", "the budget code for {p} is {v}", "Which budget code does {p} bill to?"),
    ("staging url", "the staging site of {p} runs at {v}", "Where is the staging site of {p}?"),
]
VALUES = {
    "release window": ["Tuesday mornings", "the first Friday of the month", "after 6 pm UTC"],
    "on-call owner": ["Priya Nair", "Tomas Berg", "Ines Duarte", "Kofi Mensah"],
    "database region": ["eu-west-3", "us-east-2", "ap-south-1"],
    "budget code": ["BC-4471", "BC-1032", "BC-9920"],
    "staging url": ["stage-7.internal", "beta.corp.lan", "preview-2.internal"],
}
SMALL_TALK = [
    "We talked about the weather for a while and whether the coffee machine was fixed.",
    "Someone brought cake and the conversation drifted to holidays and football.",
    "The call started late because the meeting room was booked twice again.",
    "There was a long tangent about keyboards, standing desks and the office plants.",
    "Everyone agreed the new chairs are better, then argued about lunch places.",
]
SUBJECTS = (
    "cache|billing job|search index|nightly export|login page|queue consumer|report builder|"
    "mobile app|data pipeline|alerting rule|image resizer|payments gateway|audit log|sync agent"
).split("|")
VERBS = (
    "slowed down after|was patched during|failed twice before|recovered quickly after|"
    "was discussed again at|needs more memory since|got a new owner after|was rolled back after|"
    "passed its checks after|was paused for|logged warnings through|was rebuilt for"
).split("|")
OBJECTS = (
    "the Monday deploy|the storage migration|a noisy neighbour|the holiday freeze|the vendor "
    "outage|the schema change|the load test|a config typo|the certificate renewal|the office "
    "move|the quarterly review|the kernel upgrade|the traffic spike|the backup drill"
).split("|")
CHAT = (
    "a trip to Porto|the new bakery|a marathon|the school play|a broken bike|a book club|"
    "the garden|a concert|a board game night|the dentist|a podcast|the flat hunt"
).split("|")
LOG = "{svc} {lvl} host={host} latency={ms}ms queue={q} code={code}."
SERVICES = [f"{s.replace(' ', '-')}" for s in SUBJECTS]


@dataclass
class Planted:
    id: str
    project: str
    thing: str
    question: str
    written: int  # day
    used: bool  # the agent recalls it now and then
    last_used: int = -1


def project_names(rng: random.Random, n: int) -> list[str]:
    names = {f"{a}-{b}" for a in ADJ.split() for b in ANIMAL.split()}
    return rng.sample(sorted(names), n)


def filler(rng: random.Random, sentences: int) -> list[str]:
    """Sentences of a note nobody will ask about: work chatter, small talk and log lines,
    drawn from a few thousand combinations (so notes are not near-duplicates)."""
    out = []
    for _ in range(sentences):
        roll = rng.random()
        if roll < 0.35:
            subject, verb, obj = rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS)
            out.append(f"The {subject} {verb} {obj}.")
        elif roll < 0.55:
            out.append(f"Someone told a story about {rng.choice(CHAT)}. {rng.choice(SMALL_TALK)}")
        else:
            out.append(
                LOG.format(
                    svc=rng.choice(SERVICES),
                    lvl=rng.choice(["INFO", "WARN", "DEBUG"]),
                    host=f"h{rng.randint(1, 400)}",
                    ms=rng.randint(1, 2000),
                    q=rng.randint(0, 500),
                    code=rng.randint(100, 999),
                )
            )
    return out


def simulate(path: Path, tiering: bool, args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    projects = project_names(rng, 150)
    kw: dict[str, Any] = {"dream": {"tiers": {"enabled": tiering}}}
    if args.embedder == "hashing":
        kw["embedder"] = HashingEmbedder()
    clock = FixedClock(T0)
    vault = MemVault.open(path, clock=clock, **kw)
    planted: list[Planted] = []
    recalls = accesses = 0
    started = time.perf_counter()
    for day in range(args.days):
        for j in range(args.per_day):
            now = T0 + timedelta(days=day, minutes=10 * j)
            roll = rng.random()
            if roll < 0.06 and len(planted) < len(projects):
                p = projects[len(planted)]
                thing, template, question = rng.choice(THINGS)
                key = template.format(p=p, v=rng.choice(VALUES[thing])).capitalize() + "."
                around = filler(rng, rng.randint(3, 12))
                at = 0 if rng.random() < 0.5 else rng.randint(1, len(around))
                text = " ".join([*around[:at], key, *around[at:]])
                e = vault.write(text, speaker="agent", session_id=f"d{day}", now=now)
                planted.append(
                    Planted(e.id, p, thing, question.format(p=p), day, rng.random() < 0.5)
                )
            elif roll < 0.21:  # a tool's output, as agents keep them: long, mostly noise
                p = rng.choice(projects)
                out = [f"Output of the {p} health check.", *filler(rng, rng.randint(20, 60))]
                vault.write(" ".join(out), speaker="tool", session_id=f"d{day}", now=now)
            elif roll < 0.40:
                p = rng.choice(projects)
                note = [f"Notes from the {p} sync.", *filler(rng, rng.randint(5, 20))]
                vault.write(" ".join(note), speaker="agent", session_id=f"d{day}", now=now)
            else:
                text = (
                    rng.choice(SMALL_TALK)
                    if rng.random() < 0.7
                    else f"ok, {rng.choice(projects)} next"
                )
                vault.write(text, speaker="user", session_id=f"d{day}", now=now)
        now = T0 + timedelta(days=day, hours=20)
        used = [m for m in planted if m.used]
        for m in rng.sample(used, min(args.uses_per_day, len(used))):
            hits = vault.recall(f"{m.project} {m.thing}", k=5, now=now)
            recalls += 1
            m.last_used = day  # wanted today: still relevant, whether recall found it or not
            if any(h.id == m.id for h in hits):  # put into the prompt, and it helped
                vault.record_access([m.id], now=now)
                vault.reinforce([m.id], now=now)
                accesses += 1
        if day % 7 == 6:
            vault.dream(apply=True, force=True, now=now)
    end = T0 + timedelta(days=args.days)
    relevant = [m for m in planted if max(m.written, m.last_used) >= args.days - 60]
    forgotten = [m for m in planted if m not in relevant]

    missed: dict[str, int] = {}

    def recall_at_10(items: list[Planted]) -> float | None:
        if not items:
            return None
        found = 0
        for m in items:
            if any(h.id == m.id for h in vault.recall(m.question, k=10, now=end)):
                found += 1
                continue
            got = vault.store.get_episodes("default", [m.id])
            what = (got[0].metadata.get("digest") or {}).get("level", "full") if got else "gone"
            missed[what] = missed.get(what, 0) + 1
        return round(found / len(items), 3)

    cells = vault.store.tier_counts("default")  # live episodes
    stats = vault.stats()
    result = {
        "tiering": tiering,
        "episodes": stats["episodes"],
        "episodes_retired": stats["episodes"] - sum(c["episodes"] for c in cells),
        "episodes_full_text": sum(c["episodes"] for c in cells if c["level"] == "full"),
        "text_chars": sum(c["chars"] for c in cells),
        "full_text_chars": sum(c["chars"] for c in cells if c["level"] == "full"),
        "text_chars_all": _all_text_chars(vault),
        "tiers": stats["tiers"],
        "digests": stats["digests"],
        "headlines": stats["headlines"],
        "planted": len(planted),
        "recall@10_still_relevant": recall_at_10(relevant),
        "still_relevant_questions": len(relevant),
        "recall@10_unused_for_months": recall_at_10(forgotten),
        "unused_questions": len(forgotten),
        "missed_by_level": dict(sorted(missed.items())),  # what the missed memories hold
        "agent_recalls": recalls,
        "accesses_recorded": accesses,
        "seconds": round(time.perf_counter() - started, 1),
    }
    vault.close()
    con = sqlite3.connect(path)
    con.execute("VACUUM")
    con.close()
    result["db_bytes_after_vacuum"] = path.stat().st_size
    return result


def _all_text_chars(vault: MemVault) -> int:
    """Characters of every episode's text, retired ones (merged, awaiting deletion) too."""
    from memvault.kg.model import Episode

    return sum(
        len(r.content) for r in vault.store.iter_records("default") if isinstance(r, Episode)
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--days", type=int, default=180)
    ap.add_argument("--per-day", type=int, default=30)
    ap.add_argument("--uses-per-day", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--embedder", choices=["hashing", "default"], default="hashing")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = simulate(Path(tmp) / "baseline.db", False, args)
        tiered = simulate(Path(tmp) / "tiered.db", True, args)
    out = {
        "days": args.days,
        "per_day": args.per_day,
        "embedder": args.embedder,
        "baseline": base,
        "tiered": tiered,
        "full_text_episodes_shrink": round(
            1 - tiered["episodes_full_text"] / max(base["episodes_full_text"], 1), 3
        ),
        "text_chars_shrink": round(1 - tiered["text_chars"] / max(base["text_chars"], 1), 3),
        "full_text_chars_shrink": round(
            1 - tiered["full_text_chars"] / max(base["full_text_chars"], 1), 3
        ),
        "text_chars_all_shrink": round(
            1 - tiered["text_chars_all"] / max(base["text_chars_all"], 1), 3
        ),
        "db_bytes_shrink": round(
            1 - tiered["db_bytes_after_vacuum"] / max(base["db_bytes_after_vacuum"], 1), 3
        ),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
