"""The claims level of the lint: what the person says they care about (their current
attitudes) against what they actually mentioned and asked about over the last
``lint.claims_window_days`` (the diary's daily snapshots, memvault.profile.diary). Findings
only, never a fix: a mismatch is something to notice, not to repair.

- ``claimed_not_mentioned``: a current preference for a thing (a tech choice, a tool, a
  subject being learned) whose topic was neither mentioned nor asked about in the window,
  while the namespace was active (at least ``lint.claims_min_activity`` mentions of others).
- ``avoided_but_mentioned``: a current avoidance ("I avoid Java") whose topic came up at
  least ``lint.claims_min_mentions`` times in the window.

Pure: the caller reads the attitudes and the attention.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from memvault.kg.persona import Category
from memvault.lint.findings import Finding
from memvault.persona.layer import AttitudeView
from memvault.persona.rules import content_words

# preferences about a thing one mentions (not about how answers should be written)
THINGS = {Category.TECH_CHOICE, Category.TOOLING, Category.LEARNING}
_WORD = re.compile(r"[a-z0-9][a-z0-9+#.-]*")
_VERBS = set(
    "prefer prefers preferred like likes love loves avoid avoids hate hates dislike use using "
    "used want wants always never really much more less over instead better best rather stick "
    "please don't dont can't stay away from whenever possible".split()
)


def subject_of(statement: str) -> list[str]:
    """What an attitude is about, in words: "I avoid Java" → java."""
    return [w for w in content_words(statement) if w not in _VERBS and len(w) >= 2]


def _count(subject: list[str], seen: Counter[str]) -> int:
    """Mentions and questions of names that share a word with the subject ("postgres" ↔
    "Postgres 16")."""
    want = set(subject)
    return sum(n for name, n in seen.items() if want & set(_WORD.findall(name.lower())))


def claims(
    views: Sequence[AttitudeView],
    seen: Counter[str],
    *,
    window_days: int,
    min_activity: int,
    min_mentions: int,
) -> list[Finding]:
    """``seen``: entity mentions plus names asked after, summed over the window."""
    activity = sum(seen.values())
    top = [name for name, _ in seen.most_common(3)]
    out: list[Finding] = []
    for v in views:
        a = v.attitude
        subject = subject_of(a.statement)
        if v.status != "current" or not subject:
            continue
        topic = " ".join(subject)
        n = _count(subject, seen)
        evidence = {
            "topic": topic,
            "category": a.category.value,
            "window_days": window_days,
            "mentions": n,
            "activity": activity,
            "most_mentioned": top,
        }
        if a.polarity == 1 and a.category in THINGS and n == 0 and activity >= min_activity:
            out.append(
                Finding(
                    "claims",
                    "claimed_not_mentioned",
                    "info",
                    f"says '{a.statement}' ({a.category.value}), but '{topic}' was not "
                    f"mentioned or asked about in the last {window_days} days (most mentioned: "
                    f"{', '.join(top) or 'nothing'})",
                    [f"attitude:{a.id}"],
                    evidence,
                )
            )
        elif a.polarity == -1 and n >= min_mentions:
            out.append(
                Finding(
                    "claims",
                    "avoided_but_mentioned",
                    "info",
                    f"says '{a.statement}' ({a.category.value}), but '{topic}' came up {n} "
                    f"times in the last {window_days} days",
                    [f"attitude:{a.id}"],
                    evidence,
                )
            )
    return out
