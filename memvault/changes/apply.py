"""The one place plans take effect: apply in journaled transactions, resume, undo, and
settle review items (which changes need review: :mod:`memvault.changes.routing`).

- **Record.** The run document (status ``applying``, with every auto-approved change) and
  the review items are written in one transaction before any record changes.
- **Apply.** Chunks of changes, each in one transaction with its journal entry (the state
  before, and the vectors and mentions a deletion or a new text takes away) and the run's
  progress. A change applies only if the record is still as planned; otherwise it is
  skipped and reported. A killed process leaves each chunk all-or-nothing; ``resume``
  continues from the last committed chunk.
- **Undo.** The journal's inverses, newest first, in one transaction, after checking that
  no record changed since.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel

from memvault.changes import policy
from memvault.changes.docs import (
    COMMUNITIES,
    DISCOVERY,
    JOURNAL,
    PENDING,
    PROGRESS,
    REVIEW,
    RUN,
    after_of,
    as_left,
    change_key,
    dump_change,
    journal_entry,
    rejected_ops,
    review_doc,
)
from memvault.changes.plan import MODELS, PERSONA_KINDS, Change, Plan
from memvault.changes.routing import triage
from memvault.config import ConsolidateSettings, ReviewSettings
from memvault.embed import Embedder
from memvault.errors import ConflictError, InvalidInputError, NotFoundError
from memvault.kg.model import Episode, Fact, Mention, VectorKind
from memvault.kg.persona import LIVE
from memvault.kg.store import Batch, Doc, Store, VectorRecord

_TEXT = {"episode": ("content", "speaker"), "fact": ("statement",), "entity": ("name",)}
# a digest keeps the original's meaning vector: it is still found by what it meant
# (docs/tiers.md, docs/decisions/0012)
_KEEPS_VECTOR = frozenset({"tiers.digest", "tiers.headline"})


@dataclass
class ApplyResult:
    run_id: str
    applied: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)  # changed since planned
    chunks: int = 0


class Applier:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: ConsolidateSettings,
        review: ReviewSettings | None = None,
    ):
        self.store, self.embedder, self.s = store, embedder, settings
        self.review = review or ReviewSettings()
        self.chunk = settings.apply_chunk

    # -- recording --------------------------------------------------------------------------
    def record(self, plan: Plan, report: dict[str, Any]) -> tuple[list[Change], list[Doc]]:
        thresholds = policy.load(self.store, plan.namespace).thresholds
        rejected = rejected_ops(self.store, plan.namespace)
        auto, queued = triage(plan.changes, self.s, self.review, thresholds, rejected)
        keys = [change_key(members) for members, _ in queued]
        decided = {d.id: d.status for d in self.store.get_docs(plan.namespace, REVIEW, keys)}
        reviews, held = [], {"already_queued": 0, "verdict_remembered": 0}
        for key, (members, why) in zip(keys, queued, strict=True):
            status = decided.get(key)
            if status == "pending":  # the same change waits already: one item per change
                held["already_queued"] += 1
                continue
            if status == "rejected":  # a human said no to exactly this: not asked again
                held["verdict_remembered"] += 1
                continue
            rid = key if status is None else f"{key}.{plan.run_id}"  # decided before: anew
            reviews.append(
                review_doc(rid, plan.run_id, why, members, plan.created_at, self.review.due_days)
            )
        report["review_held"] = held  # the run report says what the queue already held
        run = Doc(
            kind=RUN,
            id=plan.run_id,
            status="applying",
            created_at=plan.created_at,
            body={**report, "journal": [], "review_ids": [d.id for d in reviews]},
        )
        pending = Doc(PENDING, plan.run_id, {"changes": [dump_change(c) for c in auto]})
        progress = Doc(PROGRESS, plan.run_id, {"chunks_done": 0, "journal": [], "skipped": []})
        communities = Doc(COMMUNITIES, plan.run_id, plan.communities, created_at=plan.created_at)
        known = {
            d.id
            for d in self.store.get_docs(
                plan.namespace, DISCOVERY, [x["id"] for x in plan.discoveries]
            )
        }
        inbox = [
            Doc(
                DISCOVERY,
                d["id"],
                {**d, "run_id": plan.run_id},
                status="unseen",
                created_at=plan.created_at,
            )
            for d in plan.discoveries
            if d["id"] not in known  # a finding already in the inbox keeps its status
        ]
        self.store.apply(
            Batch(
                namespace=plan.namespace,
                docs=[run, pending, progress, communities, *reviews, *inbox],
            )
        )
        return auto, reviews

    # -- applying ---------------------------------------------------------------------------
    def run(
        self, namespace: str, run_id: str, *, on_chunk: Callable[[int], None] | None = None
    ) -> ApplyResult:
        """Apply (or finish applying) a recorded run, chunk by chunk."""
        doc = self.run_doc(namespace, run_id)
        (pending,) = self.store.get_docs(namespace, PENDING, [run_id])
        (progress,) = self.store.get_docs(namespace, PROGRESS, [run_id])
        changes = [Change.model_validate(c) for c in pending.body["changes"]]
        state = dict(progress.body)
        result = ApplyResult(run_id=run_id)
        for start in range(state["chunks_done"] * self.chunk, len(changes), self.chunk):
            journal_id = f"{run_id}:{state['chunks_done']:05d}"
            batch, entries, skipped = self.batch_for(namespace, changes[start : start + self.chunk])
            state = {
                "chunks_done": state["chunks_done"] + 1,
                "journal": [*state["journal"], journal_id],
                "skipped": [*state["skipped"], *skipped],
                "applied": state.get("applied", 0) + len(entries),
            }
            batch.docs = [
                *batch.docs,  # the persona layers' documents the changes write
                Doc(
                    JOURNAL,
                    journal_id,
                    {"run_id": run_id, "entries": entries},
                    created_at=doc.created_at,  # the run's time: retention counts from it
                ),
                Doc(PROGRESS, run_id, state),
            ]
            self.store.apply(batch)  # the chunk, its journal and the progress: all or nothing
            result.applied += len(entries)
            result.skipped += skipped
            result.chunks += 1
            if on_chunk is not None:
                on_chunk(state["chunks_done"])
        body = {
            **doc.body,
            "journal": [*doc.body["journal"], *state["journal"]],
            "applied": state.get("applied", 0),
            "skipped": state["skipped"],
        }
        self.store.apply(
            Batch(
                namespace=namespace,
                docs=[
                    Doc(RUN, run_id, body, status="applied", created_at=doc.created_at),
                    # only a resume reads the recorded changes: the journal has what undo needs
                    Doc(PENDING, run_id, {"changes": [], "applied": True}),
                ],
            )
        )
        return result

    def resume(self, namespace: str) -> list[ApplyResult]:
        """Finish runs a killed process left half applied."""
        return [
            self.run(namespace, d.id)
            for d in reversed(self.store.list_docs(namespace, RUN, status="applying"))
        ]

    def _current(
        self, namespace: str, keys: Sequence[tuple[str, str]]
    ) -> dict[tuple[str, str], dict[str, Any]]:
        """The stored state (JSON form) of each (kind, id) that exists."""
        out: dict[tuple[str, str], dict[str, Any]] = {}
        getters: dict[str, Callable[[str, Sequence[str]], Sequence[BaseModel]]] = {
            "episode": self.store.get_episodes,
            "fact": self.store.get_facts,
            "entity": self.store.get_entities,
            "session": self.store.get_sessions,
        }
        for kind, getter in getters.items():
            ids = [i for k, i in keys if k == kind]
            if ids:
                for r in getter(namespace, ids):
                    out[(kind, r.id)] = r.model_dump(mode="json")  # type: ignore[attr-defined]
        for kind in PERSONA_KINDS:  # documents: in use while their status is live
            ids = [i for k, i in keys if k == kind]
            for d in self.store.get_docs(namespace, kind, ids) if ids else []:
                if d.status == LIVE:
                    out[(kind, d.id)] = d.body
        return out

    def batch_for(
        self, namespace: str, changes: Sequence[Change]
    ) -> tuple[Batch, list[dict[str, Any]], list[dict[str, str]]]:
        """The batch that applies ``changes`` still as planned, their journal entries, and
        the ones skipped because the record changed since."""
        current = self._current(namespace, [(c.kind, c.target_id) for c in changes])
        batch = Batch(namespace=namespace)
        entries: list[dict[str, Any]] = []
        skipped: list[dict[str, str]] = []
        to_embed: list[tuple[VectorKind, str, str]] = []
        for c in changes:
            now = current.get((c.kind, c.target_id))
            if any((r or {}).get("forgotten") for r in (c.before, c.after)):
                skipped.append({"kind": c.kind, "id": c.target_id, "why": "forgotten"})
                continue
            if now == c.after:
                continue  # already applied (a resumed chunk)
            if now != c.before:
                skipped.append({"kind": c.kind, "id": c.target_id, "why": "changed since planned"})
                continue
            entry = journal_entry(c.kind, c.target_id, c.op, c.before, c.after)
            text_changed = (
                c.kind in _TEXT
                and c.op not in _KEEPS_VECTOR
                and c.before
                and c.after
                and any(c.before.get(k) != c.after.get(k) for k in _TEXT[c.kind])
            )
            created = c.kind in _TEXT and c.before is None and c.after is not None
            if c.kind in _TEXT and (c.after is None or text_changed):
                entry["vector"] = self._vector_b64(namespace, c.kind, c.target_id)  # type: ignore[arg-type]
            if c.kind == "episode" and c.after is None:
                entry["mentions"] = [
                    m.entity_id for m in self.store.mentions_of(namespace, [c.target_id])
                ]
            if c.kind in PERSONA_KINDS:
                body = c.after or c.before or {}
                batch.docs.append(_persona_doc(c.kind, c.target_id, body, c.after))
            elif c.after is None:
                batch.deletes.append((c.kind, c.target_id))  # type: ignore[arg-type]
            else:
                record = MODELS[c.kind].model_validate(c.after)
                batch.add(record)  # type: ignore[arg-type]
                if text_changed or created:
                    to_embed.append((c.kind, c.target_id, _vector_text(record)))  # type: ignore[arg-type]
            entries.append(entry)
        if to_embed:
            matrix = self.embedder.embed([t for _, _, t in to_embed])
            batch.vectors = [VectorRecord(k, i, matrix[n]) for n, (k, i, _) in enumerate(to_embed)]
        return batch, entries, skipped

    def _vector_b64(self, namespace: str, kind: VectorKind, rid: str) -> str | None:
        found = self.store.get_vectors(namespace, kind, [rid]).get(rid)
        return (
            base64.b64encode(np.asarray(found, dtype=np.float32).tobytes()).decode()
            if found is not None
            else None
        )

    # -- undo ---------------------------------------------------------------------------------
    def journal_ids(self, namespace: str, doc: Doc) -> list[str]:
        """Every journal entry of a run, in order. A chunk's journal id is committed with the
        chunk, in the run's progress; the run document lists them only once the run finishes
        (and then approvals), so a run a killed process left ``applying`` is found through
        its progress."""
        ids = list(doc.body.get("journal", []))
        if doc.status == "applying":
            found = self.store.get_docs(namespace, PROGRESS, [doc.id])
            done = found[0].body.get("journal", []) if found else []
            ids = [*done, *(i for i in ids if i not in set(done))]
        return ids

    def undo(self, namespace: str, run_id: str, *, force: bool = False) -> int:
        """Restore what a run changed: the chunks it committed (also those of a run that a
        killed process left half applied) and the review items approved in it."""
        doc = self.run_doc(namespace, run_id)
        if doc.status == "undone":
            raise InvalidInputError(f"run {run_id} is already undone", field="run_id")
        if "journal_released_at" in doc.body:
            raise InvalidInputError(
                f"run {run_id} can no longer be undone: its journal was released on "
                f"{doc.body['journal_released_at'][:10]}",
                field="run_id",
                hint="dream.undo_days sets how long a run stays undoable",
            )
        journal = self.store.get_docs(namespace, JOURNAL, self.journal_ids(namespace, doc))
        # a forgotten record's entry is a tombstone: undo never brings it back
        entries = [e for j in journal for e in j.body["entries"] if not e.get("forgotten")]
        current = self._current(namespace, [(e["kind"], e["id"]) for e in entries])
        moved = [e["id"] for e in entries if not as_left(current.get((e["kind"], e["id"])), e)]
        if moved and not force:
            raise ConflictError(
                f"{len(moved)} record(s) changed after run {run_id} (e.g. {moved[0]}); "
                "undo with force to restore them anyway"
            )
        batch = Batch(namespace=namespace)
        for e in reversed(entries):
            if e["kind"] in PERSONA_KINDS:  # a created one is kept, marked undone
                batch.docs.append(
                    _persona_doc(e["kind"], e["id"], e["before"] or after_of(e) or {}, e["before"])
                )
                continue
            if e["before"] is None:
                batch.deletes.append((e["kind"], e["id"]))
                continue
            batch.add(MODELS[e["kind"]].model_validate(e["before"]))  # type: ignore[arg-type]
            if e.get("vector"):
                vec = np.frombuffer(base64.b64decode(e["vector"]), dtype=np.float32)
                batch.vectors.append(VectorRecord(e["kind"], e["id"], vec))
            for entity_id in e.get("mentions", []):
                batch.mentions.append(
                    Mention(namespace=namespace, episode_id=e["id"], entity_id=entity_id)
                )
        body = {
            **doc.body,
            "journal": [j.id for j in journal],
            "undone_entries": len(entries),
            "undone_from": doc.status,
        }
        withdrawn = [
            Doc(REVIEW, d.id, {**d.body, "note": "its run was undone"}, "withdrawn", d.created_at)
            for d in self.store.get_docs(namespace, REVIEW, doc.body.get("review_ids", []))
            if d.status == "pending"
        ]
        batch.docs = [
            *batch.docs,  # the persona layers' documents restored
            Doc(RUN, run_id, body, status="undone", created_at=doc.created_at),
            *withdrawn,
        ]
        self.store.apply(batch)
        return len(entries)

    def run_doc(self, namespace: str, run_id: str) -> Doc:
        found = self.store.get_docs(namespace, RUN, [run_id])
        if not found:
            raise NotFoundError("dream run", run_id, namespace)
        return found[0]


def _persona_doc(kind: str, rid: str, body: dict[str, Any], live: Any) -> Doc:
    """A persona layer's document: live with ``body``, or (``live`` None) kept as undone."""
    return Doc(kind, rid, body, status=LIVE if live is not None else "undone")


def _vector_text(record: Any) -> str:
    if isinstance(record, Episode | Fact):
        return record.vector_text()
    return str(getattr(record, "statement", None) or record.name)
