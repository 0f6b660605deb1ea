"""The session-start primer: the block an agent loads when a session begins, within a hard
token budget, with its economics.

It holds each memory type's fold digest (``memvault.folds``), the person's current attitudes
and skills at L2 or above (the persona layers, passed in as lines), the facts valid now
(newest first, passed in as lines) and the number of changes waiting for review and of
unseen discoveries. Its cost is O(types) reads plus bounded listings, whatever the history's
length. Budgets are
tokens of an LLM tokenizer (memvault.language.tokens: o200k_base when installed, else
characters / 4, said in ``tokenizer``) and enforced in code: sections are added in order of use
(who the user is first, raw episodes last) and the last one that does not fit is clipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memvault.changes import queue
from memvault.folds import cells, clip, projects, tokens
from memvault.kg.model import MemoryType
from memvault.kg.store import Store
from memvault.language.tokens import tokenizer

ORDER = (
    MemoryType.USER,
    MemoryType.FEEDBACK,
    MemoryType.PROJECT,
    MemoryType.REFERENCE,
    MemoryType.EPISODIC,
)
TITLES = {
    MemoryType.USER: "About the user",
    MemoryType.FEEDBACK: "Corrections and reactions",
    MemoryType.PROJECT: "Work in progress",
    MemoryType.REFERENCE: "Reference material",
    MemoryType.EPISODIC: "What happened",
}
WAITING = 100  # review items and discoveries are counted up to this many
MIN_TOKENS = 50  # less cannot hold a section title and one line


@dataclass
class Primer:
    namespace: str
    text: str
    budget_tokens: int
    sections: list[str] = field(default_factory=list)
    clipped: bool = False
    raw_tokens: int = 0  # of the episodes the digests cover
    episodes_covered: int = 0
    pending_review: int = 0
    unseen_discoveries: int = 0
    project: str | None = None

    @property
    def tokens(self) -> int:
        return tokens(self.text)

    @property
    def ratio(self) -> float:
        """Raw history tokens per primer token (0 when nothing is folded yet)."""
        return round(self.raw_tokens / self.tokens, 1) if self.tokens and self.raw_tokens else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "project": self.project,
            "text": self.text,
            "sections": self.sections,
            "budget_tokens": self.budget_tokens,
            "primer_tokens": self.tokens,
            "clipped": self.clipped,
            "raw_tokens": self.raw_tokens,
            "episodes_covered": self.episodes_covered,
            "ratio": self.ratio,
            "pending_review": self.pending_review,
            "unseen_discoveries": self.unseen_discoveries,
            "tokenizer": tokenizer().name,
        }


def build(
    store: Store,
    namespace: str,
    *,
    budget_tokens: int,
    persona: list[str] | None = None,
    facts: list[str] | None = None,
    project: str | None = None,
) -> Primer:
    state = cells(store, namespace)
    others: list[str] = []
    if project:  # the project's digests; the namespace's own where the project has none
        own = cells(store, namespace, project)
        state = {t: own[t] if own[t].digest.strip() else state[t] for t in state}
    else:
        others = projects(store, namespace)
    pending = len(queue.review_items(store, namespace, "pending", WAITING))
    unseen = len(queue.inbox(store, namespace, "unseen", WAITING))
    out = Primer(namespace=namespace, text="", budget_tokens=budget_tokens, project=project)
    out.pending_review, out.unseen_discoveries = pending, unseen
    out.raw_tokens = sum(c.raw for c in state.values())
    out.episodes_covered = sum(c.episodes for c in state.values())

    blocks: list[tuple[str, str]] = []
    waiting = []
    if pending:
        waiting.append(f"{pending if pending < WAITING else f'{WAITING}+'} changes wait for review")
    if unseen:
        waiting.append(f"{unseen if unseen < WAITING else f'{WAITING}+'} unseen discoveries")
    if waiting:
        blocks.append(("waiting", "Waiting: " + "; ".join(waiting) + "."))
    if others:
        shown = ", ".join(others[:10]) + (
            f" and {len(others) - 10} more" if len(others) > 10 else ""
        )
        blocks.append(("projects", f"Projects with their own digests: {shown}."))
    if persona:
        blocks.append(
            ("persona", "How they like things done, and what they know:\n" + "\n".join(persona))
        )
    if facts:
        blocks.append(("facts", "What is true now (newest first):\n" + "\n".join(facts)))
    for t in ORDER:
        digest = state[t].digest.strip()
        if digest:
            blocks.append((t.value, f"{TITLES[t]} (as of {_day(state[t].updated_at)}):\n{digest}"))

    parts: list[str] = []
    for name, block in blocks:
        room = budget_tokens - (tokens("\n\n".join([*parts, ""])) if parts else 0)
        if room <= 0:
            out.clipped = True
            break
        if tokens(block) > room:
            block = clip(block, room)
            out.clipped = True
            if len(block) < 20:
                break
        parts.append(block)
        out.sections.append(name)
        if out.clipped:
            break
    out.text = "\n\n".join(parts)
    while tokens(out.text) > budget_tokens:  # the joins' characters, at the very edge
        out.text = clip(out.text, budget_tokens)
    return out


def _day(stamp: str | None) -> str:
    return stamp[:10] if stamp else "never"
