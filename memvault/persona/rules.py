"""The offline extraction of the persona layers: honest rules for the common phrasings, no
model. What they do not recognise they leave alone (an attitude whose category no word
names is not guessed).

Attitudes: "I prefer …", "I'd rather …", "I always / usually …", "I never …", "I like /
love / enjoy …", "I hate / dislike / avoid …", "please (always) …", "please don't …", with a
context when the phrase names one ("in chat", "for reports"); "short answers in chat, full
detail in reports" is two attitudes in two contexts. Skills: "I've been using X for years"
(do), "I use / wrote / deployed X" (do), "I taught X" (teach), "I built … with X" (build),
"I'm learning X", "I read about X" (read).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memvault.kg.persona import Category, UseKind
from memvault.language import clip

# the limits of the records the drafts become (persona.model): a draft respects them by
# construction, so no text (a 13,000-character transcript without punctuation) fails a write
STATEMENT_MAX, TOPIC_MAX, SKILL_NAME_MAX = 500, 200, 100

_LEX: dict[Category, str] = {
    Category.WRITING_STYLE: "answer answers reply replies tone wording emoji emojis bullet bullets "
    "concise short brief detail detailed verbose formal casual prose summary summaries "
    "headings sentences paragraphs explanations jargon",
    Category.TECH_CHOICE: "postgres postgresql mysql sqlite python rust go golang java typescript "
    "javascript react vue django flask fastapi kubernetes aws gcp azure database databases "
    "framework frameworks library libraries orm graphql kotlin swift ruby rails",
    Category.DESIGN_PRINCIPLE: "simple simplicity composition inheritance dry abstraction "
    "abstractions tdd readability explicit immutability microservices monolith premature "
    "coupling modules functions tests test typing types",
    Category.PACE: "fast quickly slow slowly step incremental incrementally deadline deadlines "
    "rush rushed pace iterations steps",
    Category.AESTHETIC: "dark light color colors colour colours font fonts minimal minimalist "
    "layout ui icons animations typography",
    Category.COMMUNICATION: "email emails slack call calls meeting meetings async updates standup "
    "standups messages phone",
    Category.TOOLING: "vim neovim emacs vscode editor terminal ide git tmux docker cli shell zsh "
    "jetbrains pycharm linter formatter",
    Category.RISK: "risky risk risks safe safety backup backups rollback rollbacks experimental "
    "caution cautious stable beta",
    Category.LEARNING: "docs documentation examples video videos tutorial tutorials courses "
    "books hands-on",
    Category.COLLABORATION: "pairing pair review reviews team together alone solo feedback "
    "mentoring",
}
WORD_CATEGORY = {w: c for c, words in _LEX.items() for w in words.split()}
# What a preference is a choice about: two statements about the same facet (in the same
# category and context) are versions of one attitude, whatever words they use ("emails" →
# "calls" is a change of channel; "Postgres" and "Rust" are two attitudes).
FACETS: dict[str, str] = {
    "length": "short brief concise detail detailed verbose long full terse",
    "format": "bullet bullets paragraphs prose headings tables lists",
    "tone": "formal casual friendly blunt",
    "emoji": "emoji emojis",
    "database": "postgres postgresql mysql sqlite database databases mongodb",
    "language": "python rust go golang java typescript javascript kotlin swift ruby",
    "editor": "vim neovim emacs vscode editor ide jetbrains pycharm",
    "channel": "email emails slack call calls meeting meetings async phone messages",
    "theme": "dark light mode theme",
    "deploys": "deploy deploys deployment rollback rollbacks experimental releases",
    "medium": "examples docs documentation video videos tutorial tutorials books courses",
    "mode": "pairing pair solo alone together",
    "structure": "functions modules classes inheritance composition",
}
WORD_FACET = {w: f for f, words in FACETS.items() for w in words.split()}
STOP = set(
    "i me my we you it its this that these those a an the to of in on for with and or but so "
    "please always usually never really much strongly prefer rather would d like love enjoy "
    "hate dislike avoid don't do not no more over than instead use using be is are when "
    "writing doing them their our your all some any very just also now want wants have get "
    "need see keep honestly".split()
)
_CONTEXT = re.compile(
    r"\b(in|for|during)\s+(chat|chats|reports?|emails?|code reviews?|docs|documentation|"
    r"meetings?|slack|prs?|pull requests|commit messages|production|prototypes?|presentations?)\b",
    re.I,
)
_ATTITUDE = [
    (re.compile(r"\bI (?:really |much |strongly )?prefer (?P<x>[^.!?;]+)", re.I), 1),
    (re.compile(r"\bI(?:'d| would) rather (?P<x>[^.!?;]+)", re.I), 1),
    (re.compile(r"\bI (?:always|usually) (?P<x>[^.!?;]+)", re.I), 1),
    (re.compile(r"\bI never (?P<x>[^.!?;]+)", re.I), -1),
    (re.compile(r"\bI (?:really )?(?:like|love|enjoy) (?P<x>[^.!?;]+)", re.I), 1),
    (re.compile(r"\bI (?:hate|dislike|avoid|can't stand) (?P<x>[^.!?;]+)", re.I), -1),
    (re.compile(r"^\s*please,? (?:don't|do not|never|stop) (?P<x>[^.!?;]+)", re.I | re.M), -1),
    (re.compile(r"^\s*please,? (?:always )?(?P<x>[^.!?;]+)", re.I | re.M), 1),
]
_NOW = re.compile(r"\b(?:now|these days|actually|anymore|any more)\b", re.I)
_NAME = r"(?P<s>[A-Z][\w+#.-]*(?: [A-Z][\w+#.-]*){0,2}|[a-z][\w+#-]*)"
_SKILL: list[tuple[re.Pattern[str], UseKind]] = [
    (re.compile(rf"\bI(?:'ve| have) been (?:using|writing|doing|working with) {_NAME}"), "do"),
    (re.compile(rf"\bI (?:taught|teach|mentor(?:ed)? (?:\w+ )?(?:in|on)) {_NAME}"), "teach"),
    (re.compile(rf"\bI (?:gave a talk|presented) (?:on|about) {_NAME}"), "teach"),
    (
        re.compile(rf"\bI (?:built|created|shipped) [\w -]{{0,40}}? (?:with|in|using) {_NAME}"),
        "build",
    ),
    (re.compile(rf"\bI(?:'m| am) (?:learning|studying|reading about) {_NAME}"), "read"),
    (re.compile(rf"\bI (?:read|am reading) (?:about|up on) {_NAME}"), "read"),
    (re.compile(rf"\bI (?:use|used|deployed|debugged|refactored|configured) {_NAME}"), "do"),
]
_TECH = set(
    "python rust go sql docker kubernetes terraform react typescript javascript java bash git "
    "excel figma spanish french german piano guitar photography pytorch pandas linux".split()
)


@dataclass
class AttitudeDraft:
    category: Category
    statement: str
    topic: str
    context: str | None
    polarity: int


@dataclass
class SkillDraft:
    name: str
    kind: UseKind


_SELF = re.compile(r"\b(?:I|please)\b", re.I)


def might_speak_of_self(text: str) -> bool:
    """A cheap first look: only texts with "I" or "please" can hold what the rules read."""
    return _SELF.search(text) is not None


def content_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z][a-z0-9+#'-]*", text.lower()) if w not in STOP]


def topic_of(text: str) -> str:
    """The chain key of a statement: its facets (``~length``), else its content words."""
    words = content_words(text)
    facets = sorted({f"~{WORD_FACET[w]}" for w in words if w in WORD_FACET})
    return clip(" ".join(facets or sorted(set(words))), TOPIC_MAX)


def category_of(text: str) -> Category | None:
    votes = Counter(
        WORD_CATEGORY[w]
        for w in re.findall(r"[a-z][a-z0-9+#-]*", text.lower())
        if w in WORD_CATEGORY
    )
    if not votes:
        return None
    best = max(votes.values())
    return next(c for c in Category if votes.get(c) == best)


def _parts(x: str) -> list[str]:
    """'short answers in chat, full detail in reports' → both, when each names a context."""
    pieces = [p.strip() for p in re.split(r",\s*(?:but\s+|and\s+)?|\s+but\s+", x) if p.strip()]
    if len(pieces) > 1 and all(_CONTEXT.search(p) for p in pieces):
        return pieces
    return [x.strip()]


def attitudes(text: str) -> list[AttitudeDraft]:
    out: list[AttitudeDraft] = []
    seen: set[str] = set()
    for pattern, polarity in _ATTITUDE:
        for m in pattern.finditer(text):
            lead = m.group(0)[: m.start("x") - m.start(0)]
            lead = re.sub(r"^\s*(?:I(?:'d)?|please,?)\s+", "", lead, flags=re.I).lower()
            for part in _parts(m.group("x")):
                ctx = _CONTEXT.search(part)
                context = f"{ctx.group(1).lower()} {ctx.group(2).lower()}" if ctx else None
                core = " ".join(_NOW.sub(" ", _CONTEXT.sub(" ", part)).split()).strip(" ,")
                category = category_of(core)
                words = content_words(core)
                key = " ".join(words)
                if category is None or not words or key in seen:
                    continue
                seen.add(key)
                tail = f" ({context})" if context else ""
                out.append(
                    AttitudeDraft(
                        category=category,
                        statement=clip(lead + core, STATEMENT_MAX - len(tail)) + tail,
                        topic=topic_of(core),
                        context=context,
                        polarity=polarity,
                    )
                )
    return out


def skills(text: str) -> list[SkillDraft]:
    out: list[SkillDraft] = []
    seen: set[str] = set()
    for pattern, kind in _SKILL:
        for m in pattern.finditer(text):
            name = m.group("s").strip(" .")
            if name.islower() and name not in _TECH:
                continue  # 'I use it', 'I used to': not a skill
            if len(name) > SKILL_NAME_MAX:
                continue  # no skill has such a name: a run of text the pattern swept up
            if name.lower() in seen:
                continue
            seen.add(name.lower())
            out.append(SkillDraft(name=name, kind=kind))
    return out


def read(item: Mapping[str, Any]) -> tuple[list[AttitudeDraft], list[SkillDraft]]:
    """What the rules find in one text (``item["text"]``): the write path's unit of work,
    a pure function a rule worker can run (memvault.llm.workers)."""
    text = item["text"]
    return attitudes(text), skills(text)
