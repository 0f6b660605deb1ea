"""Folds: one evolving digest per (namespace, project, memory type), rewritten in place, so a
session can start warm on a few hundred tokens per type however long the history. An
episode's project is ``metadata.project`` or claude-mem's project field (``project_of``);
episodes without one fold into the namespace's own cells.

A fold run reads only the episodes written after the cell's cursor, gives the model the
existing digest and those notes in batches (``fold.batch_notes`` per call), and stores the
rewritten digest, clipped in code to ``fold.budget_tokens`` (a limit the model can ignore is
not a limit). Each batch is committed with the cursor it reached, so a second run with
nothing new makes no call, and a killed run resumes after its last committed batch.

The cursor is the last folded episode's write time and id (``created_at``, never changed by
later updates, so a dream touching old episodes does not fold them again); a seq watermark
bounds the scan to what changed since the last completed run. Records imported with old
write times are folded by ``rebuild``, which starts the cell over.

Offline, the digest is extractive (``extractive_fold``): one line per distinct statement;
of statements about the same thing the newest stands; within the budget, the lines that
carry the most detail (paths, commands, version strings) and rare words, not the newest
(seed 001's lesson: a fold must keep detail and resolve recency). A configured model rewrites
the digest instead and is asked the same: keep every path, command and version that still
stands, prefer newer notes where they contradict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from memvault.config import FoldSettings
from memvault.kg.model import Episode, MemoryType, episode_order
from memvault.kg.store import Batch, Doc, Store
from memvault.language.tokens import CHARS_PER_TOKEN, tokenizer, tokens
from memvault.llm.port import LLM
from memvault.llm.prompts import FoldDigest, fold_v1

KIND = "fold"


def _stamp(e: Episode) -> tuple[str, str]:
    """An episode's place in write order, as comparable text (fixed-width UTC time, id)."""
    return (e.created_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f"), e.id)


def clip(text: str, budget_tokens: int) -> str:
    """``text`` within the budget (tokens of :func:`~memvault.language.tokens.tokenizer`), cut
    at the last line, else sentence, else word boundary."""
    head = tokenizer().head(text, budget_tokens)
    if head == text:
        return text
    for mark in ("\n", ". ", " "):
        cut = head.rfind(mark)
        if cut > len(head) // 2:
            return head[: cut + (1 if mark == ". " else 0)].rstrip()
    return head.rstrip()


def note_line(e: Episode, width: int = 200) -> str:
    text = " ".join(e.content.split())
    if len(text) > width:
        text = text[: width - 1].rsplit(" ", 1)[0] + "…"
    who = f"{e.speaker}: " if e.speaker else ""
    return f"- {e.occurred_at.date().isoformat()} {who}{text}"


def project_of(e: Episode) -> str:
    """An episode's project: ``metadata.project``, else claude-mem's project field (kept by
    the import), else none ("": the namespace's own cells)."""
    found = e.metadata.get("project") or (e.metadata.get("claude_mem") or {}).get("project")
    return str(found).strip()[:128] if found else ""


def cell_id(memory_type: MemoryType, project: str = "") -> str:
    """A cell's document id: the type alone for the namespace's cells (as before projects),
    ``type@project`` for a project's."""
    return f"{memory_type.value}@{project}" if project else memory_type.value


def parse_cell_id(doc_id: str) -> tuple[MemoryType, str]:
    """The (type, project) of a cell's id; ValueError names a type that does not exist."""
    kind, _, project = doc_id.partition("@")
    return MemoryType(kind), project


@dataclass
class Cell:
    type: MemoryType
    digest: str = ""
    cursor: tuple[str, str] | None = None  # (created_at ISO, episode id) of the last folded
    watermark: int = 0  # namespace seq: everything up to it was considered
    episodes: int = 0  # how many episodes the digest covers
    raw_chars: int = 0  # their text, for the primer's economics
    raw_tokens: int = 0  # the same text in tokens
    updated_at: str | None = None
    history: list[dict[str, Any]] = field(default_factory=list)  # earlier digests, newest first
    before: dict[str, Any] | None = None  # the cell before the last applied run (for undo)
    project: str = ""  # "": the namespace's cell of this type

    @property
    def raw(self) -> int:
        """Tokens of the text the digest covers; a cell folded before tokens were counted
        (``raw_tokens`` 0) has its characters / 4."""
        return self.raw_tokens or -(-self.raw_chars // CHARS_PER_TOKEN)

    def state(self) -> dict[str, Any]:
        """What undo restores: everything but the history and the undo point."""
        return {
            "digest": self.digest,
            "cursor": list(self.cursor) if self.cursor else None,
            "watermark": self.watermark,
            "episodes": self.episodes,
            "raw_chars": self.raw_chars,
            "raw_tokens": self.raw_tokens,
            "updated_at": self.updated_at,
        }

    def doc(self) -> Doc:
        body = {"type": self.type.value, **self.state(), "history": self.history}
        if self.project:
            body["project"] = self.project
        return Doc(
            kind=KIND, id=cell_id(self.type, self.project), body=body | {"before": self.before}
        )

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
            raw_tokens=int(b.get("raw_tokens", 0)),
            updated_at=b.get("updated_at"),
            history=list(b.get("history", [])),
            before=b.get("before"),
            project=str(b.get("project") or ""),
        )


def cells(store: Store, namespace: str, project: str = "") -> dict[MemoryType, Cell]:
    """Every type's cell of the namespace, or of one of its projects (empty ones for types
    never folded)."""
    ids = [cell_id(t, project) for t in MemoryType]
    found = {Cell.from_doc(d).type: Cell.from_doc(d) for d in store.get_docs(namespace, KIND, ids)}
    return {t: found.get(t, Cell(type=t, project=project)) for t in MemoryType}


def all_cells(store: Store, namespace: str) -> dict[tuple[MemoryType, str], Cell]:
    """Every cell, the namespace's (project "") and each project's, by (type, project)."""
    out = {(t, ""): c for t, c in cells(store, namespace).items()}
    for d in store.list_docs(namespace, KIND, limit=100_000):
        c = Cell.from_doc(d)
        out[(c.type, c.project)] = c
    return out


def projects(store: Store, namespace: str) -> list[str]:
    return sorted({p for _, p in all_cells(store, namespace) if p})


def economics(store: Store, namespace: str) -> list[dict[str, Any]]:
    """Seed 001's token economics per project ("" is the namespace's own cells):
    observations folded, their raw tokens, the digests' tokens, and the ratio."""
    rows: dict[str, dict[str, Any]] = {}
    for (_, project), c in all_cells(store, namespace).items():
        row = rows.setdefault(
            project, {"project": project, "observations": 0, "raw_tokens": 0, "digest_tokens": 0}
        )
        row["observations"] += c.episodes
        row["raw_tokens"] += c.raw
        row["digest_tokens"] += tokens(c.digest)
    out = []
    for project in sorted(rows):
        row = rows[project]
        raw, digest = row["raw_tokens"], row["digest_tokens"]
        if not row["observations"]:
            continue
        ratio = round(raw / digest, 1) if digest else 0.0
        out.append(row | {"ratio": ratio})
    return out


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
        state = all_cells(self.store, namespace)
        original = {k: Cell.from_doc(c.doc()) for k, c in state.items()}
        if rebuild:
            state = {
                (t, p): Cell(type=t, project=p, history=self._push(c))
                for (t, p), c in state.items()
            }
        low = min(c.watermark for c in state.values())
        changes = self.store.changed_since(namespace, low)
        for e in changes.episodes:  # a project seen for the first time gets its cells
            key = (e.type, project_of(e))
            if key not in state:
                state[key] = original[key] = Cell(type=e.type, project=key[1])
        report: dict[str, dict[str, int]] = {}
        for (t, project), cell in sorted(state.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            fresh = self._fresh(cell, changes.episodes)
            name = cell_id(t, project)
            if project and not fresh and not cell.episodes:
                continue
            report[name] = {"new": len(fresh), "batches": 0, "calls": 0}
            if not apply:
                continue
            size = self.s.batch_notes
            if fresh or rebuild:
                cell.before = original[(t, project)].state()  # undo goes back to here, one run
            for start in range(0, len(fresh), size):
                part = fresh[start : start + size]
                self._fold_batch(namespace, cell, part, now)
                report[name]["batches"] += 1
                report[name]["calls"] += 1
                if on_batch is not None:
                    on_batch(name, report[name]["batches"])
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
        for (t, project), cell in all_cells(self.store, namespace).items():
            if cell.before is None:
                continue
            b = cell.before
            out[cell_id(t, project)] = {
                "digest_now": cell.digest,
                "digest_restored": b["digest"],
                "episodes_now": cell.episodes,
                "episodes_restored": b["episodes"],
            }
            if apply:
                restored = Cell(
                    type=t,
                    project=project,
                    digest=b["digest"],
                    cursor=(b["cursor"][0], b["cursor"][1]) if b.get("cursor") else None,
                    watermark=int(b["watermark"]),
                    episodes=int(b["episodes"]),
                    raw_chars=int(b["raw_chars"]),
                    raw_tokens=int(b.get("raw_tokens", 0)),
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
            and project_of(e) == cell.project
            and e.expired_at is None
            and e.content.strip()
            and (cell.cursor is None or _stamp(e) > cell.cursor)
        ]
        return sorted(out, key=_stamp)

    def _fold_batch(
        self, namespace: str, cell: Cell, part: Sequence[Episode], now: datetime
    ) -> None:
        # in the order things happened (the batch is in write order, for the cursor)
        notes = [note_line(e) for e in sorted(part, key=episode_order)]
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
        cell.raw_tokens = cell.raw + sum(tokens(e.content) for e in part)
        cell.updated_at = now.isoformat()
        self.store.apply(Batch(namespace=namespace, docs=[cell.doc()]))

    def _push(self, cell: Cell) -> list[dict[str, Any]]:
        if not cell.digest:
            return cell.history
        kept = {"digest": cell.digest, "updated_at": cell.updated_at, "episodes": cell.episodes}
        return [kept, *cell.history][: self.s.history]
