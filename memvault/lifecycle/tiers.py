"""Tiers: hot → warm → cold → frozen, from how long an episode has gone unused, and the
one-way digests that go with them (docs/tiers.md).

- **Where an episode belongs.** Idle days = now − its last touch (written, happened, used,
  confirmed). Per memory type, ``dream.tiers.after_days`` gives the idle days before warm,
  cold and frozen. The janitor's episodic TTL hands its episodes over as due for cold.
- **Used once.** A memory ever accessed or confirmed waits ``used_grace`` (2) times longer
  before cold and frozen, and the TTL does not hand it over.
- **Protected.** Permanent memories, ignited ones (use has stretched their half-life at least
  ``ignited_stretch`` times: :func:`memvault.recall.scoring.stretch_of`) and those confirmed
  useful in the last ``protect_reinforced_days`` are never compressed (they go warm at most).
- **One way.** To cold, the text is replaced by a digest of at most ``digest_chars``; to
  frozen, by a headline of at most ``headline_chars`` (the record keeps its dates, speaker,
  session and id). The model writes the digests (the offline provider: an extractive summary)
  and the limits are applied in code after it answers. A compressed memory used again moves
  back up to hot (:mod:`memvault.feedback`) but keeps its digest: detail is never
  regenerated. The journal keeps the dropped text for undo for ``journal_retention_days``
  (:func:`memvault.changes.retention.forget_dropped_text`), then it is gone.
- **Shown compressed, found whole.** The episode keeps its original's vector (the applier
  does not re-embed a digest) and the words the digest dropped, sorted, as ``cues`` that
  only the keyword index reads (docs/decisions/0012).

Moves are proposed changes like every other (journaled, undoable within the retention).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence, Set
from datetime import UTC, datetime
from typing import Any

from memvault.changes.workspace import Workspace
from memvault.config import RecallSettings, TierSettings
from memvault.kg.model import Episode, MemoryType, Tier
from memvault.language.person import FIRST
from memvault.language.told import told
from memvault.language.words import cue_words
from memvault.lifecycle.stickiness import last_touched
from memvault.llm.port import LLM
from memvault.llm.prompts import digest_v1
from memvault.recall.scoring import age_days, stretch_of

ORDER = (Tier.HOT, Tier.WARM, Tier.COLD, Tier.FROZEN)
FULL, DIGEST, HEADLINE = "full", "digest", "headline"
_SENTENCE = re.compile(r"(?<=[.!?…])\s+")
_NAMED = re.compile(r"\b(?:[A-Z][\w'-]+|\d[\d,.:/-]*)")
_WORD = re.compile(r"[a-z][a-z0-9'-]+")
_MACHINE = re.compile(r"\S+=\S+|\S*/\S*/\S*")


def level(e: Episode) -> str:
    """How much of an episode's text is left: full, digest or headline."""
    return str((e.metadata.get("digest") or {}).get("level", FULL))


def clip_chars(text: str, limit: int) -> str:
    """``text`` (whitespace collapsed) in at most ``limit`` characters, cut at a word
    boundary and marked with an ellipsis when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    cut = head.rfind(" ")
    return (head[:cut] if cut > limit // 2 else head).rstrip(" ,;:") + "…"


def rarity(texts: Sequence[str]) -> dict[str, float]:
    """Each word's rarity across ``texts`` (0: in every text, 1: in one), for
    :func:`extractive_digest`: what a text shares with all the others says little about it."""
    df: Counter[str] = Counter()
    for t in texts:
        df.update(set(_WORD.findall(t.lower())))
    n = len(texts)
    if n < 2:
        return {}
    return {w: math.log((1 + n) / (1 + c)) / math.log((1 + n) / 2) for w, c in df.items()}


def extractive_digest(text: str, limit: int, rare: Mapping[str, float] | None = None) -> str:
    """The offline digest: whole sentences of the text, in their order, chosen by how much
    they name (capitalised words past a sentence's first, numbers, dates; a time of their own
    such as "last Friday" counts half a sentence's worth: it dates what the memory tells;
    machine output such as key=value pairs and paths counts against; the first sentence a
    little more; a greeting or exclamation of three words, "Hey John!", "Guess what?", last),
    within ``limit``. With ``rare``
    (:func:`rarity` over the texts digested together) a sentence also counts by how rare its
    words are: the boilerplate a text shares with the others goes first. It drops sentences;
    it never rewrites them."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    sentences = [s for s in _SENTENCE.split(text) if s]
    if len(sentences) == 1:
        return clip_chars(sentences[0], limit)

    def weight(i: int) -> float:
        s = sentences[i]
        if _greets(s):
            return -1.0  # "Hey John!", "Guess what?": the room goes to what is told
        words = max(len(s.split()), 1)
        machine = len(_MACHINE.findall(s)) / words  # key=value, paths: output, not prose
        found = _WORD.findall(s.lower())
        rarest = sum(rare.get(w, 1.0) for w in found) / max(len(found), 1) if rare else 0.0
        # a capitalised first word is grammar, not a name ("Hey Mel!" names one person)
        named = len(_NAMED.findall(s)) - bool(re.match(r"[A-Z]", s))
        # a time of its own ("last Friday", "two weeks ago") dates what the memory tells
        dated = 0.5 if told(s, _ANY_TIME) else 0.0
        return (0.5 if i == 0 else 0.0) + named / words - machine + rarest + dated

    chosen: list[int] = []
    seen: set[str] = set()
    used = 0
    for i in sorted(range(len(sentences)), key=weight, reverse=True):
        key = " ".join(re.findall(r"\w+", sentences[i].lower()))
        if key in seen:
            continue  # a repeated sentence says nothing new
        seen.add(key)
        cost = len(sentences[i]) + (1 if chosen else 0)
        if used + cost <= limit:
            chosen.append(i)
            used += cost
    if not chosen:  # every sentence is over the limit: the one that names most, clipped
        return clip_chars(sentences[max(range(len(sentences)), key=weight)], limit)
    return " ".join(sentences[i] for i in sorted(chosen))


def headline(text: str, limit: int) -> str:
    """A frozen memory's headline: one line within ``limit``, as many of the text's leading
    sentences as fit (the digest it is cut from already chose the sentences that name the
    most), the first one clipped when none fits. A text that fits is kept whole: cutting
    "Thanks, Gina! I won't quit." to its greeting lost what it said. A text that does not
    fit leaves out its greetings and exclamations first ("Hey John!", "Guess what?"): they
    took the room of "I went to a castle during my trip to the UK last Friday", and with it
    the time the memory is found by."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    sentences = [s for s in _SENTENCE.split(line) if s]
    telling = [s for s in sentences if not _greets(s)] or sentences
    kept = ""
    for sentence in telling:
        joined = f"{kept} {sentence}" if kept else sentence
        if len(joined) > limit:
            break
        kept = joined
    return kept or clip_chars(" ".join(telling), limit)


_GREETING_MOST = 3  # words: "Hey John!", "Thanks, Gina!", "Guess what?", "Oh wow!"
_ANY_TIME = datetime(2000, 1, 1, tzinfo=UTC)  # told() needs a time; only whether it reads one


def _greets(sentence: str) -> bool:
    """A short exclamation or question that tells nothing of anyone: at most three words, no
    digit, no first person ("I quit!" tells), ending in "!" or "?"."""
    words = re.findall(r"[\w'’]+", sentence)
    return (
        len(words) <= _GREETING_MOST
        and sentence.rstrip().endswith(("!", "?"))
        and not any(ch.isdigit() for ch in sentence)
        and not {w.lower().replace("’", "'") for w in words} & FIRST
    )


def protection(e: Episode, now: datetime, s: TierSettings, recall: RecallSettings) -> str | None:
    """Why ``e`` must stay whole, or None."""
    if e.permanent:
        return "permanent"
    stretch = stretch_of(e, now, recall)
    if stretch >= s.ignited_stretch:
        return "ignited"
    if e.last_reinforced_at and age_days(e.last_reinforced_at, now) <= s.protect_reinforced_days:
        return "confirmed"
    return None


def target(e: Episode, now: datetime, s: TierSettings, due_cold: bool = False) -> Tier:
    """The tier ``e`` belongs in by its idle days alone. A memory that was ever used (an
    access or a confirmation) keeps its text ``used_grace`` times longer before cold and
    frozen: it proved useful once, and the detail is what a digest loses."""
    idle = age_days(last_touched(e), now)
    warm, cold, frozen = s.after_days.get(e.type, s.after_days[MemoryType.EPISODIC])
    used = bool(e.access_count or e.reinforced_count) and s.used_grace > 1
    if used:
        cold *= s.used_grace
        frozen = frozen * s.used_grace if frozen is not None else None
    if frozen is not None and idle > frozen:
        return Tier.FROZEN
    if idle > cold or (due_cold and not used and settled(e, now, s)):
        return Tier.COLD
    return Tier.WARM if idle > warm else Tier.HOT


def settled(e: Episode, now: datetime, s: TierSettings) -> bool:
    """Whether the episodic TTL may send ``e`` cold: a turn written as it happened, yes; a
    history written long after it happened (an import) only once it has been in the vault
    past its type's warm threshold: its time of use starts at its import, so it is not
    compressed the night it arrives."""
    if age_days(e.occurred_at, e.created_at) <= 1.0:
        return True
    warm = s.after_days.get(e.type, s.after_days[MemoryType.EPISODIC])[0]
    return age_days(e.created_at, now) > warm


def _why(e: Episode, now: datetime, s: TierSettings, to: Tier, due: bool) -> str:
    """The move's reason as it is: idle days, or the janitor's episodic TTL."""
    if due and ORDER.index(target(e, now, s)) < ORDER.index(to):
        return f"past the episodic TTL (hygiene.ttl_turns / ttl_days), unused {_idle(e, now)}"
    return f"unused {_idle(e, now)}"


class Digester:
    """Digests and headlines through the LLM port, in batches, with the limits applied in
    code to whatever comes back."""

    def __init__(self, llm: LLM, s: TierSettings):
        self.llm, self.s = llm, s
        self.calls = 0
        self.missed = 0  # texts the model left out or answered empty: digested by the rule

    def digest(self, items: Sequence[tuple[str, str, int]]) -> dict[str, str]:
        """``items``: (id, text, limit) → id: the compressed text within its limit. Texts
        already within their limit are kept as they are, without a call."""
        out = {i: " ".join(t.split()) for i, t, n in items if len(" ".join(t.split())) <= n}
        todo = [(i, t, n) for i, t, n in items if i not in out]
        for start in range(0, len(todo), self.s.batch):
            chunk = todo[start : start + self.s.batch]
            answer = self.llm.complete(
                digest_v1([{"id": i, "text": t, "limit_chars": n} for i, t, n in chunk]),
                call_site="tiers.digest",
            )
            self.calls += 1
            got = {d.id: d.text for d in answer.digests}
            for i, text, limit in chunk:
                said = " ".join((got.get(i) or "").split())
                if not said:
                    self.missed += 1
                    said = extractive_digest(text, limit)
                out[i] = clip_chars(said, limit)
        return out


def move_tiers(
    ws: Workspace,
    s: TierSettings,
    recall: RecallSettings,
    llm: LLM,
    due_cold: Set[str] = frozenset(),
) -> dict[str, Any]:
    """Propose every downward move the tiers call for now; the stage's report."""
    if not s.enabled:
        return {"enabled": False}
    moves: Counter[str] = Counter()
    protected: Counter[str] = Counter()
    plans: list[tuple[Episode, Tier, str | None]] = []  # (episode, new tier, new level)
    for e in sorted(ws.episodes.values(), key=lambda r: r.id):
        if e.expired_at is not None:
            continue
        to = target(e, ws.now, s, e.id in due_cold)
        why = protection(e, ws.now, s, recall)
        if why and ORDER.index(to) > ORDER.index(Tier.WARM):
            protected[why] += 1  # kept whole: by its idle days alone, and warm at most
            to = min(target(e, ws.now, s), Tier.WARM, key=ORDER.index)
        if ORDER.index(to) <= ORDER.index(e.tier):
            continue
        new_level = HEADLINE if to == Tier.FROZEN else DIGEST if to == Tier.COLD else None
        if new_level and _RANK[new_level] <= _RANK[level(e)]:
            new_level = None  # already compressed that far: never re-coloured, never redone
        plans.append((e, to, new_level))
    digester = Digester(llm, s)
    texts = digester.digest(
        [
            (e.id, e.content, s.headline_chars if lv == HEADLINE else s.digest_chars)
            for e, _, lv in plans
            if lv
        ]
    )
    dropped = whole = 0
    compressed: Counter[str] = Counter()
    for e, to, new_level in plans:
        moves[f"{e.tier.value}→{to.value}"] += 1
        text = texts.get(e.id, "")
        if new_level == HEADLINE:
            text = headline(text, s.headline_chars)  # the model's answer, cut to one line
        if new_level is None or text == " ".join(e.content.split()):
            whole += new_level is not None  # short enough already: nothing to drop
            ws.update(
                e,
                "tiers.move",
                f"{_why(e, ws.now, s, to, e.id in due_cold)}: {e.tier} → {to}"
                + (", text short enough to keep whole" if new_level else ""),
                certainty=0.95,
                tier=to,
            )
            continue
        was = e.metadata.get("digest") or {}
        chars_before = int(was.get("chars_before", len(e.content)))
        # what the text said before, cues of an earlier compression included
        cues = cue_words(f"{e.content} {was.get('cues', '')}", text)
        dropped += len(e.content) - len(text)
        compressed[new_level] += 1
        ws.update(
            e,
            f"tiers.{new_level}",
            f"{_why(e, ws.now, s, to, e.id in due_cold)}: {e.tier} → {to}, text "
            f"{len(e.content)} → "
            f"{len(text)} characters (one way)",
            certainty=0.95,
            impact="medium" if e.type == MemoryType.USER else "low",
            tier=to,
            content=text,
            metadata={
                **e.metadata,
                "digest": {
                    "level": new_level,
                    "at": ws.now.isoformat(),
                    "chars_before": chars_before,
                    "from_tier": e.tier.value,
                    "cues": " ".join(cues),  # the dropped words, sorted: found by its words
                },
            },
        )
    return {
        "enabled": True,
        "moves": dict(sorted(moves.items())),
        "digests": compressed[DIGEST],
        "headlines": compressed[HEADLINE],
        "kept_whole": whole,
        "chars_dropped": dropped,
        "protected": dict(sorted(protected.items())),
        "model_calls": digester.calls,
        "model_missed": digester.missed,
    }


_RANK = {FULL: 0, DIGEST: 1, HEADLINE: 2}


def _idle(e: Episode, now: datetime) -> str:
    return f"{age_days(last_touched(e), now):.0f} days"
