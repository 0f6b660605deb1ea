"""Folds: one evolving digest per (namespace, memory type), rewritten in place, so a session
can start warm on a few hundred tokens per type however long the history.

A fold run reads only the episodes written after the cell's cursor, gives the model the
existing digest and those notes in batches (``fold.batch_notes`` per call), and stores the
rewritten digest, clipped in code to ``fold.budget_tokens`` (a limit the model can ignore is
not a limit). Each batch is committed with the cursor it reached, so a second run with
nothing new makes no call, and a killed run resumes after its last committed batch.

The cursor is the last folded episode's write time and id (``created_at``, never changed by
later updates, so a dream touching old episodes does not fold them again); a seq watermark
bounds the scan to what changed since the last completed run. Records imported with old
write times are folded by ``rebuild``, which starts the cell over.

Offline, the digest is extractive (``extractive_fold``): one line per distinct statement,
newest first, oldest dropped at the budget. It merges exact repetitions; it does not
understand contradictions beyond putting the newer statement first. A configured model
rewrites the digest instead and is asked to resolve contradictions in favour of newer notes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from memvault.config import FoldSettings
from memvault.kg.model import Episode, MemoryType
from memvault.kg.store import Batch, Doc, Store
from memvault.llm.port import LLM
from memvault.llm.prompts import FoldDigest, fold_v1

KIND = "fold"
CHARS_PER_TOKEN = 4  # an estimate (no LLM tokenizer is installed); budgets are applied to it
_LINE = re.compile(r"^- (\d{4}-\d{2}-\d{2}) (.*)$")


def _stamp(e: Episode) -> tuple[str, str]:
    """An episode's place in write order, as comparable text (fixed-width UTC time, id)."""
    return (e.created_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f"), e.id)


def tokens(text: str) -> int:
    """Estimated tokens of ``text`` (characters / 4, rounded up)."""
    return -(-len(text) // CHARS_PER_TOKEN)


def clip(text: str, budget_tokens: int) -> str:
    """``text`` within the budget, cut at the last line, else sentence, else word boundary."""
    limit = budget_tokens * CHARS_PER_TOKEN
    if len(text) <= limit:
        return text
    head = text[:limit]
    for mark in ("\n", ". ", " "):
        cut = head.rfind(mark)
        if cut > limit // 2:
            return head[: cut + (1 if mark == ". " else 0)].rstrip()
    return head.rstrip()


def note_line(e: Episode, width: int = 200) -> str:
    text = " ".join(e.content.split())
    if len(text) > width:
        text = text[: width - 1].rsplit(" ", 1)[0] + "…"
    who = f"{e.speaker}: " if e.speaker else ""
    return f"- {e.occurred_at.date().isoformat()} {who}{text}"


def extractive_fold(digest: str, notes: Sequence[str], budget_tokens: int) -> str:
    """The offline fold: existing lines and new note lines, one per distinct statement (the
    newest date kept), newest first, cut at the budget."""
    best: dict[str, tuple[str, str]] = {}
    for line in [*digest.splitlines(), *notes]:
        m = _LINE.match(line.strip())
        if not m:
            continue
        day, text = m.groups()
        key = " ".join(re.findall(r"\w+", text.lower()))
        if key and (key not in best or day > best[key][0]):
            best[key] = (day, text)
    lines = [f"- {d} {t}" for d, t in sorted(best.values(), key=lambda x: x[0], reverse=True)]
    out: list[str] = []
    for line in lines:
        if tokens("\n".join([*out, line])) > budget_tokens:
            break
        out.append(line)
    return "\n".join(out)


@dataclass
class Cell:
    type: MemoryType
    digest: str = ""
    cursor: tuple[str, str] | None = None  # (created_at ISO, episode id) of the last folded
    watermark: int = 0  # namespace seq: everything up to it was considered
    episodes: int = 0  # how many episodes the digest covers
    raw_chars: int = 0  # their text, for the primer's economics
    updated_at: str | None = None
    history: list[dict[str, Any]] = field(default_factory=list)  # earlier digests, newest first
    before: dict[str, Any] | None = None  # the cell before the last applied run (for undo)

    def state(self) -> dict[str, Any]:
        """What undo restores: everything but the history and the undo point."""
        return {
            "digest": self.digest,
            "cursor": list(self.cursor) if self.cursor else None,
            "watermark": self.watermark,
            "episodes": self.episodes,
            "raw_chars": self.raw_chars,
            "updated_at": self.updated_at,
        }

    def doc(self) -> Doc:
        body = {"type": self.type.value, **self.state(), "history": self.history}
        return Doc(kind=KIND, id=self.type.value, body=body | {"before": self.before})

    @classmethod
    def from_doc(cls, doc: Doc) -> Cell:
        b = doc.body
        return cls(
            type=MemoryType(b["type"]),
            digest=b.get("digest", ""),
            cursor=(b["cursor"][0], b["cursor"][1]) if b.get("cursor") else None,
            watermark=int(b.get("watermark", 0)),
            episodes=int(b.get("episodes", 0)),
            raw_chars=int(b.get("raw_chars", 0)),
            updated_at=b.get("updated_at"),
            history=list(b.get("history", [])),
            before=b.get("before"),
        )


def cells(store: Store, namespace: str) -> dict[MemoryType, Cell]:
    """Every type's cell (empty ones for types never folded)."""
    found = {
        MemoryType(d.id): Cell.from_doc(d)
        for d in store.get_docs(namespace, KIND, [t.value for t in MemoryType])
    }
    return {t: found.get(t, Cell(type=t)) for t in MemoryType}


@dataclass
class FoldReport:
    namespace: str
    applied: bool
    per_type: dict[str, dict[str, int]]

    @property
    def calls(self) -> int:
        return sum(v["calls"] for v in self.per_type.values())


class Folder:
    def __init__(self, store: Store, llm: LLM, settings: FoldSettings):
        self.store, self.llm, self.s = store, llm, settings

    def fold(
        self,
        namespace: str,
        *,
        now: datetime,
        apply: bool = False,
        rebuild: bool = False,
        on_batch: Any = None,
    ) -> FoldReport:
        """Fold what is new into each type's digest. Without ``apply``, only counts what a
        run would read. ``on_batch(type, done)`` is called after each committed batch."""
        state = cells(self.store, namespace)
        original = {t: Cell.from_doc(c.doc()) for t, c in state.items()}
        if rebuild:
            state = {t: Cell(type=t, history=self._push(c)) for t, c in state.items()}
        low = min(c.watermark for c in state.values())
        changes = self.store.changed_since(namespace, low)
        report: dict[str, dict[str, int]] = {}
        for t, cell in state.items():
            fresh = self._fresh(cell, changes.episodes)
            report[t.value] = {"new": len(fresh), "batches": 0, "calls": 0}
            if not apply:
                continue
            size = self.s.batch_notes
            if fresh or rebuild:
                cell.before = original[t].state()  # undo goes back to here, one run
            for start in range(0, len(fresh), size):
                part = fresh[start : start + size]
                self._fold_batch(namespace, cell, part, now)
                report[t.value]["batches"] += 1
                report[t.value]["calls"] += 1
                if on_batch is not None:
                    on_batch(t.value, report[t.value]["batches"])
            if cell.watermark != changes.watermark or rebuild:
                cell.watermark = changes.watermark
                self.store.apply(Batch(namespace=namespace, docs=[cell.doc()]))
        return FoldReport(namespace=namespace, applied=apply, per_type=report)

    def undo(self, namespace: str, *, apply: bool = False) -> dict[str, dict[str, Any]]:
        """Each cell's last applied fold run undone: its digest, cursor and counts as they
        were before it (the episodes it read are folded again by the next run). Without
        ``apply``, what would be restored. One step: an undone cell has nothing more to
        undo until it folds again."""
        out: dict[str, dict[str, Any]] = {}
        docs = []
        for t, cell in cells(self.store, namespace).items():
            if cell.before is None:
                continue
            b = cell.before
            out[t.value] = {
                "digest_now": cell.digest,
                "digest_restored": b["digest"],
                "episodes_now": cell.episodes,
                "episodes_restored": b["episodes"],
            }
            if apply:
                restored = Cell(
                    type=t,
                    digest=b["digest"],
                    cursor=(b["cursor"][0], b["cursor"][1]) if b.get("cursor") else None,
                    watermark=int(b["watermark"]),
                    episodes=int(b["episodes"]),
                    raw_chars=int(b["raw_chars"]),
                    updated_at=b.get("updated_at"),
                    history=self._push(cell),  # the undone digest stays readable
                )
                docs.append(restored.doc())
        if docs:
            self.store.apply(Batch(namespace=namespace, docs=docs))
        return out

    def _fresh(self, cell: Cell, episodes: Sequence[Episode]) -> list[Episode]:
        out = [
            e
            for e in episodes
            if e.type == cell.type
            and e.expired_at is None
            and e.content.strip()
            and (cell.cursor is None or _stamp(e) > cell.cursor)
        ]
        return sorted(out, key=_stamp)

    def _fold_batch(
        self, namespace: str, cell: Cell, part: Sequence[Episode], now: datetime
    ) -> None:
        notes = [note_line(e) for e in part]
        answer: FoldDigest = self.llm.complete(
            fold_v1(cell.type.value, cell.digest, notes, self.s.budget_tokens),
            call_site="fold",
        )
        cell.history = self._push(cell)
        cell.digest = clip(answer.digest.strip(), self.s.budget_tokens)
        last = part[-1]
        cell.cursor = _stamp(last)
        cell.episodes += len(part)
        cell.raw_chars += sum(len(e.content) for e in part)
        cell.updated_at = now.isoformat()
        self.store.apply(Batch(namespace=namespace, docs=[cell.doc()]))

    def _push(self, cell: Cell) -> list[dict[str, Any]]:
        if not cell.digest:
            return cell.history
        kept = {"digest": cell.digest, "updated_at": cell.updated_at, "episodes": cell.episodes}
        return [kept, *cell.history][: self.s.history]
