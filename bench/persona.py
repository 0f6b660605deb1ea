"""The persona layers on six generated months: current attitudes and skill levels against the
plan, beside a naive baseline, and what the write path's rules cost.

For each synthetic user (``--users``, default 6) the generator plans, over ``--days`` (180):
attitudes that are restated now and then (current at the end), changed once (the new one is
current, the old one is not), or said once early and never again (abandoned: not current);
and skills used weekly (L3), monthly (L2), once (L1), or weekly for twelve weeks early and
not since (L2: rusty; the naive reading says L3). Each statement is said in one of several
phrasings, some of which the offline rules do not know ("X works best for me", "My go-to is
X"): a miss is counted, not hidden. Small talk and the assistant's own words (which must not
count as the user's) fill the days.

memvault reads the result with ``vault.attitudes()`` / ``vault.skills()`` at the end. The naive
baseline reads the same extracted statements with "the last statement of a category (and
context) wins, nothing decays", and skill levels from all experience, undecayed.

    .venv/bin/python bench/persona.py [--users 6] [--days 180] [--seed 3] [--embedder hashing]

Write time is measured with persona extraction on and off over the same turns, with the
vault's default embedder unless ``--embedder hashing`` (whose writes are so cheap that the
rules' share looks larger than any user will see).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder
from memvault.kg.persona import level_for
from memvault.persona import rules

T0 = datetime(2026, 1, 5, 9, tzinfo=UTC)
# (category, the words that name it, the words of its change): what a user may prefer
ATTITUDES = [
    ("writing_style", "short answers", "detailed answers"),
    ("writing_style", "bullet points", "full paragraphs"),
    ("tech_choice", "Postgres databases", "SQLite databases"),
    ("tooling", "vim as my editor", "vscode as my editor"),
    ("communication", "async updates on slack", "short calls"),
    ("design_principle", "simple functions", "small modules"),
    ("risk", "a rollback plan for every deploy", "fast experimental deploys"),
    ("learning", "examples before docs", "video tutorials"),
    ("collaboration", "pairing on hard problems", "working solo on hard problems"),
    ("aesthetic", "dark mode", "light mode"),
]
KNOWN = ["I prefer {x}.", "I always want {x}.", "Honestly I'd rather have {x}.", "I like {x}."]
UNKNOWN = ["{x} works best for me.", "My go-to is {x}."]  # the rules do not read these
SKILLS = ["Rust", "Python", "Kubernetes", "Terraform", "Figma", "Spanish", "Go", "Docker"]
SMALL = [
    "Morning! Coffee first.",
    "The train was late again.",
    "Lunch was good today.",
    "Let's pick this up tomorrow.",
]
ASSISTANT = ["I prefer to double-check before answering.", "I always cite my sources."]


@dataclass
class Plan:
    attitudes: list[tuple[str, str]]  # (category, words) current at the end
    stale: list[tuple[str, str]]  # said, not current at the end
    skills: dict[str, str]  # name → planned level at the end
    turns: list[tuple[int, str, str]]  # (day, speaker, text)


def plan_user(rng: random.Random, days: int) -> Plan:
    p = Plan([], [], {}, [])
    for category, first, second in rng.sample(ATTITUDES, 6):
        fate = rng.choice(["restated", "changed", "abandoned"])
        said = [rng.randint(0, 10)]
        if fate == "restated":
            said += sorted(rng.sample(range(30, days), 4))
        for d in said:
            p.turns.append((d, "user", rng.choice(KNOWN + UNKNOWN).format(x=first)))
        if fate == "changed":
            for d in sorted(rng.sample(range(days // 2, days), 3)):
                p.turns.append((d, "user", rng.choice(KNOWN + UNKNOWN).format(x=second)))
            p.attitudes.append((category, second))
            p.stale.append((category, first))
        elif fate == "restated":
            p.attitudes.append((category, first))
        else:
            p.stale.append((category, first))
    habits = ["weekly", "monthly", "once", "burst"]
    for name, habit in zip(rng.sample(SKILLS, 4), habits, strict=True):
        uses = {
            "weekly": list(range(rng.randint(0, 6), days, 7)),
            "monthly": list(range(rng.randint(0, 29), days, 30)),
            "once": [rng.randint(0, days - 1)],
            "burst": list(range(0, 84, 7)),  # twelve weeks, then nothing: rusty
        }[habit]
        for d in uses:
            verb = "I taught" if habit == "weekly" and d % 28 == 0 else "I used"
            p.turns.append((d, "user", f"{verb} {name} for the migration today."))
        p.skills[name] = {"weekly": "L3", "monthly": "L2", "once": "L1", "burst": "L2"}[habit]
    for d in range(days):
        p.turns.append((d, "user", rng.choice(SMALL)))
        if rng.random() < 0.2:
            p.turns.append((d, "assistant", rng.choice(ASSISTANT)))
    p.turns.sort(key=lambda t: t[0])
    return p


def matches(category: str, words: str, got: tuple[str, str]) -> bool:
    want = set(rules.content_words(words))
    return got[0] == category and want <= set(rules.content_words(got[1]))


def score(plan: Plan, got: list[tuple[str, str]]) -> tuple[int, int, int]:
    """(returned that match a planned current attitude, returned, planned current)."""
    good = sum(any(matches(c, w, g) for c, w in plan.attitudes) for g in got)
    return good, len(got), len(plan.attitudes)


def naive(turns: list[tuple[int, str, str]], days: int) -> tuple[list[tuple[str, str]], dict]:
    last: dict[tuple[str, str], str] = {}
    xp: dict[str, float] = {}
    weights = {"read": 1.0, "do": 3.0, "teach": 6.0, "build": 6.0}
    for _, speaker, text in turns:
        if speaker != "user":
            continue
        for a in rules.attitudes(text):
            last[(a.category.value, a.context or "")] = a.statement
        for s in rules.skills(text):
            xp[s.name] = xp.get(s.name, 0.0) + weights[s.kind]
    levels = {name: level_for(v, 10.0, 30.0) for name, v in xp.items()}
    return [(c, s) for (c, _), s in last.items()], levels


def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    totals = {"memvault": [0, 0, 0], "naive": [0, 0, 0]}
    stale_current = {"memvault": 0, "naive": 0}
    skill_hits = {"memvault": 0, "naive": 0}
    skills_planned = 0
    write_s = {"on": 0.0, "off": 0.0}
    end = T0 + timedelta(days=args.days)
    with tempfile.TemporaryDirectory() as tmp:
        for u in range(args.users):
            plan = plan_user(rng, args.days)
            for mode in ("off", "on") if u % 2 else ("on", "off"):  # neither always first
                path = Path(tmp) / f"u{u}-{mode}.db"
                with MemVault.open(
                    path,
                    clock=FixedClock(end),
                    persona={"on_write": mode == "on"},
                    **({"embedder": HashingEmbedder()} if args.embedder == "hashing" else {}),
                ) as vault:
                    started = time.perf_counter()
                    for i, (day, speaker, text) in enumerate(plan.turns):
                        when = T0 + timedelta(days=day, minutes=i % 600)
                        vault.write(text, speaker=speaker, session_id=f"d{day}", now=when)
                    write_s[mode] += time.perf_counter() - started
                    if mode == "on":
                        got = [(a["category"], a["statement"]) for a in vault.attitudes()]
                        levels = {s["name"]: s["level"] for s in vault.skills()}
            base_got, base_levels = naive(plan.turns, args.days)
            for name, got_, lv in (("memvault", got, levels), ("naive", base_got, base_levels)):
                t = score(plan, got_)
                totals[name] = [a + b for a, b in zip(totals[name], t, strict=True)]
                stale_current[name] += sum(
                    any(matches(c, w, g) for g in got_) for c, w in plan.stale
                )
                skill_hits[name] += sum(lv.get(n) == want for n, want in plan.skills.items())
            skills_planned += len(plan.skills)

    def pr(t: list[int]) -> dict[str, float]:
        return {
            "precision": round(t[0] / max(t[1], 1), 3),
            "recall": round(t[0] / max(t[2], 1), 3),
        }

    return {
        "users": args.users,
        "days": args.days,
        "attitudes": {
            name: {**pr(t), "stale_reported_current": stale_current[name]}
            for name, t in totals.items()
        },
        "skill_level_accuracy": {
            name: round(n / max(skills_planned, 1), 3) for name, n in skill_hits.items()
        },
        "write_seconds": {k: round(v, 2) for k, v in write_s.items()},
        "write_overhead": round(write_s["on"] / max(write_s["off"], 1e-9) - 1, 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", type=int, default=6)
    ap.add_argument("--days", type=int, default=180)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument(
        "--embedder",
        choices=["default", "hashing"],
        default="default",
        help="default: the vault's own (MiniLM), so write time is what a user sees",
    )
    json.dump(run(ap.parse_args()), sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
