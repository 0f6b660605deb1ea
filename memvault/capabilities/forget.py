"""Forget, erase a data subject, correct: the only ways a true-or-false memory leaves a vault.

- **Forget** (``plan`` then ``apply``): the episodes and everything derived only from them
  are erased — facts whose every source is among them, entities nothing else names, their
  vectors, keyword rows and mentions — and what is also supported by other memories stays,
  without them (a kept fact loses the forgotten source). Every document of the namespace
  (dream runs and journals, review items, the inbox, persona items, the recall log, folds)
  is scrubbed: a record of an erased id becomes a tombstone ``{"id", "forgotten": true}``
  (undo of an earlier run skips it, so nothing comes back), erased ids leave every list,
  a line quoting an erased text is dropped, and the fold digests of the memory types
  involved are reset (the next fold rebuilds them from what remains). The store then purges
  its residue (the embedded file: keyword index segments merged, the log truncated, freed
  pages zeroed by ``secure_delete``). One transaction; an audit document records who, when
  and which ids, never the text. It cannot be undone, and it sticks: the erased memories'
  keys are kept (memvault.kg.forgotten), so a replayed transcript, a re-run ingest or an
  older dump does not write them back.
- **Forget a subject**: every episode naming the person (by the graph's mentions or by
  the name as a word in the text), every fact about them and their entity, as one forget;
  always previewed first.
- **Correct**: a corrected episode is written beside the old one, which is retired
  (``expired_at``, a ``correction`` replacement pointing at the new one); facts derived
  only from the old episode are retired too. History stays: ``facts --history`` and
  as-of reads before the correction still show what was believed then.

A forget reads the whole namespace: the records twice (to plan, again under the lock to
erase and scrub) and the documents once. It is rare, and a miss would leave text behind.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from memvault.config import Settings
from memvault.coord.port import Coordination, owner_id
from memvault.errors import InvalidInputError, NotFoundError
from memvault.folds import Cell
from memvault.kg import forgotten
from memvault.kg.model import Entity, Episode, Fact, MemoryType, Mention, Replacement, new_id
from memvault.kg.store import Batch, Doc, FactQuery, Store
from memvault.language.words import plain_words

AUDIT = "audit"  # who forgot or corrected what, when: ids and counts, never text
TOMBSTONE = "forgotten"
REDACTED = "[forgotten]"
_PERSONA = ("attitude", "skill")
_FOLD = "fold"
_MARK_MIN = 12  # shorter texts are matched only as a whole line, not inside other text
_MARK_LEN = 60  # a quoted text is recognised by its first characters (folds clip lines)
_CLOSED = {"pending": "withdrawn", "unseen": "dismissed", "seen": "dismissed"}


@dataclass
class ForgetPlan:
    """What a forget erases and keeps. ``applied`` False: a preview, nothing changed."""

    namespace: str
    episode_ids: list[str]
    fact_ids: list[str] = field(default_factory=list)  # erased: derived only from these
    facts_kept: list[str] = field(default_factory=list)  # also supported elsewhere: kept
    entity_ids: list[str] = field(default_factory=list)  # named by nothing else
    preview: list[dict[str, str]] = field(default_factory=list)  # kind, id, text (clipped)
    applied: bool = False
    audit_id: str | None = None
    records_scrubbed: int = 0
    docs_scrubbed: int = 0
    docs_dropped: int = 0
    folds_reset: list[str] = field(default_factory=list)
    residue: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Correction:
    namespace: str
    old_id: str
    new_id: str
    facts_retired: list[str]


def _flat(text: str) -> str:
    return " ".join(text.split())


def _preview(kind: str, rid: str, text: str) -> dict[str, str]:
    flat = _flat(text)
    return {"kind": kind, "id": rid, "text": flat if len(flat) <= 80 else flat[:79] + "…"}


class Scrubber:
    """Takes erased ids and texts out of any JSON value (a document body, a record's
    metadata): see the module docstring."""

    def __init__(self, ids: Iterable[str], texts: Iterable[str]):
        self.ids = set(ids)
        flat = {_flat(t) for t in texts if t and t.strip()}
        self.marks = sorted({t[:_MARK_LEN] for t in flat if len(t) >= _MARK_MIN})
        self.whole = {t for t in flat if len(t) < _MARK_MIN}

    def quoted(self, text: str) -> bool:
        flat = _flat(text)
        return flat in self.whole or any(m in flat for m in self.marks)

    def value(self, v: Any) -> Any:
        if isinstance(v, dict):
            if v.get("id") in self.ids:
                return {k: v[k] for k in ("kind", "id", "op") if k in v} | {TOMBSTONE: True}
            return {k: self.value(x) for k, x in v.items() if k not in self.ids}
        if isinstance(v, list):
            return [
                self.value(x)
                for x in v
                if not (isinstance(x, str) and x in self.ids)
                and not (isinstance(x, dict) and x.get("episode_id") in self.ids)
            ]
        if isinstance(v, str) and v not in self.ids and self.quoted(v):
            kept = [line for line in v.splitlines() if not self.quoted(line)]
            return "\n".join(kept) if kept and len(kept) < len(v.splitlines()) else REDACTED
        return v


class Forgetting:
    def __init__(self, store: Store, coord: Coordination, settings: Settings):
        self.store, self.coord, self.s = store, coord, settings

    # -- planning -------------------------------------------------------------------------
    def plan(self, namespace: str, episode_ids: Sequence[str]) -> ForgetPlan:
        """What forgetting these episodes erases and keeps (nothing is changed)."""
        wanted = list(dict.fromkeys(i.strip() for i in episode_ids if i and i.strip()))
        if not wanted:
            raise InvalidInputError("names no memory", field="id", hint="give an episode id")
        found = self.store.get_episodes(namespace, wanted)
        missing = [i for i in wanted if i not in {e.id for e in found}]
        if missing:
            raise NotFoundError("episode", missing[0], namespace)
        return self._plan(namespace, found, subject_facts=[], subject_entities=[])

    def plan_subject(self, namespace: str, name: str) -> ForgetPlan:
        """Everything about one person: the episodes naming them, the facts about them and
        their entity (nothing is changed)."""
        if not name or not name.strip():
            raise InvalidInputError("is empty", field="subject", hint="name the person")
        entities = self.store.find_entities(namespace, [name.strip()])
        word = re.compile(rf"(?<!\w){re.escape(name.strip())}(?!\w)", re.IGNORECASE)
        parts = set(plain_words(name))
        ids = {e.id for e in entities}
        named = {ep for ep, _ in self.store.episodes_mentioning(namespace, list(ids), 10**9)}

        def names(r: Episode) -> bool:  # in its text, or among a digest's dropped words
            cues = set(str((r.metadata.get("digest") or {}).get("cues", "")).split())
            return bool(word.search(r.content)) or (bool(parts) and parts <= cues)

        episodes = [
            r
            for r in self.store.iter_records(namespace)
            if isinstance(r, Episode) and (r.id in named or names(r) or r.speaker == name.strip())
        ]
        facts = self.store.facts_about(namespace, list(ids), include_expired=True) if ids else []
        if not episodes and not facts and not entities:
            raise NotFoundError("subject", name.strip(), namespace)
        return self._plan(namespace, episodes, subject_facts=facts, subject_entities=entities)

    def _plan(
        self,
        namespace: str,
        episodes: Sequence[Episode],
        *,
        subject_facts: Sequence[Fact],
        subject_entities: Sequence[Entity],
    ) -> ForgetPlan:
        gone = {e.id for e in episodes}
        facts, entity_of, named_elsewhere = [], {}, set()
        for r in self.store.iter_records(namespace):
            if isinstance(r, Fact):
                facts.append(r)
            elif isinstance(r, Entity):
                entity_of[r.id] = r
            elif isinstance(r, Mention) and r.episode_id not in gone:
                named_elsewhere.add(r.entity_id)
        erased_facts = {f.id for f in subject_facts}
        kept: list[str] = []
        for f in facts:
            sources = set(f.source_episode_ids)
            if f.id in erased_facts or not sources & gone:
                continue
            if sources <= gone:
                erased_facts.add(f.id)
            else:
                kept.append(f.id)
        used = {
            i for f in facts if f.id not in erased_facts for i in (f.subject_id, f.object_id) if i
        }
        mentioned = {m.entity_id for m in self.store.mentions_of(namespace, sorted(gone))}
        erased_entities = {e.id for e in subject_entities} | {
            e for e in mentioned if e not in named_elsewhere and e not in used
        }
        by_id = {f.id: f for f in facts}
        preview = [_preview("episode", e.id, e.content) for e in episodes]
        preview += [_preview("fact", i, by_id[i].statement) for i in sorted(erased_facts)]
        preview += [
            _preview("entity", i, entity_of[i].name)
            for i in sorted(erased_entities)
            if i in entity_of
        ]
        return ForgetPlan(
            namespace=namespace,
            episode_ids=sorted(gone),
            fact_ids=sorted(erased_facts),
            facts_kept=sorted(kept),
            entity_ids=sorted(erased_entities & set(entity_of)),
            preview=preview,
        )

    # -- applying -------------------------------------------------------------------------
    def apply(self, plan: ForgetPlan, *, by: str, now: datetime) -> ForgetPlan:
        """Erase what ``plan`` lists, planned again under the namespace's dream lock: a fact
        derived from the memories since the preview goes too, and a dream that read them
        cannot write them back."""
        ns = plan.namespace
        ttl = self.s.dream.gate.lock_ttl_s
        with self.coord.locked(f"dream-lock:{ns}", owner_id(), ttl):
            episodes = self.store.get_episodes(ns, plan.episode_ids)
            facts = self.store.get_facts(ns, plan.fact_ids)
            entities = self.store.get_entities(ns, plan.entity_ids)
            plan = self._plan(ns, episodes, subject_facts=facts, subject_entities=entities)
            texts = [e.content for e in episodes]
            texts += [f.statement for f in self.store.get_facts(ns, plan.fact_ids)]
            scrub = Scrubber([*plan.episode_ids, *plan.fact_ids, *plan.entity_ids], texts)
            batch = Batch(namespace=ns)
            batch.deletes += [("episode", i) for i in plan.episode_ids]
            batch.deletes += [("fact", i) for i in plan.fact_ids]
            batch.deletes += [("entity", i) for i in plan.entity_ids]
            self._scrub_records(plan, Scrubber(scrub.ids, []), batch)
            types = {e.type.value for e in episodes}
            self._scrub_docs(ns, scrub, batch, types, plan)
            erased = self.store.get_episodes(ns, plan.episode_ids)
            batch.docs.append(forgotten.recorded(self.store, ns, erased, now))  # stays so
            plan.audit_id = new_id()
            batch.docs.append(
                Doc(
                    AUDIT,
                    plan.audit_id,
                    {
                        "action": "forget",
                        "by": by,
                        "at": now.isoformat(),
                        "episode_ids": plan.episode_ids,
                        "fact_ids": plan.fact_ids,
                        "entity_ids": plan.entity_ids,
                        "facts_kept": len(plan.facts_kept),
                    },
                    created_at=now,
                )
            )
            self.store.apply(batch)
        plan.residue = self.store.purge_residue()
        plan.residue |= {"search": self.store.prepare_search(ns)}  # the ANN file rewritten
        plan.applied = True
        return plan

    def _scrub_records(self, plan: ForgetPlan, scrub: Scrubber, batch: Batch) -> None:
        """Kept records lose the erased ids (a kept fact's sources, merged_from lists,
        replacements pointing at a forgotten episode), never their own words (``scrub``
        knows ids only)."""
        gone = set(plan.episode_ids) | set(plan.fact_ids)
        for r in self.store.iter_records(plan.namespace):
            if isinstance(r, Episode | Fact) and r.id not in gone:
                data = r.model_dump(mode="json", exclude={"id"})
                clean = scrub.value(data)
                if clean != data:
                    batch.add(type(r).model_validate(clean | {"id": r.id}))
                    plan.records_scrubbed += 1

    def _scrub_docs(
        self, ns: str, scrub: Scrubber, batch: Batch, types: set[str], plan: ForgetPlan
    ) -> None:
        for d in self.store.iter_docs(ns):
            if d.kind == _FOLD and d.id.partition("@")[0] in types:
                kind, _, project = d.id.partition("@")  # a project's cell: "type@project"
                batch.docs.append(Cell(MemoryType(kind), project=project).doc())
                plan.folds_reset.append(d.id)
                continue
            body = scrub.value(d.body)
            if body == d.body:
                continue
            if d.kind in _PERSONA and d.body.get("evidence") and not body.get("evidence"):
                batch.drop_docs.append((d.kind, d.id))  # derived only from what is erased
                plan.docs_dropped += 1
                continue
            status = _CLOSED.get(d.status or "", d.status) if d.kind != AUDIT else d.status
            batch.docs.append(Doc(d.kind, d.id, body, status=status, created_at=d.created_at))
            plan.docs_scrubbed += 1

    # -- correcting -----------------------------------------------------------------------
    def retire_corrected(
        self, namespace: str, old: Episode, new: Episode, *, by: str, now: datetime
    ) -> Correction:
        """Retire ``old`` in favour of its corrected version ``new`` (already written)."""
        live = self.store.list_facts(namespace, FactQuery(limit=1_000_000))
        retired = [
            f.model_copy(update={"expired_at": now})
            for f in live
            if f.source_episode_ids and set(f.source_episode_ids) <= {old.id}
        ]
        swap = Replacement(
            episode_id=new.id,
            at=now,
            attribute="correction",
            before=_flat(old.content)[:200],
            after=_flat(new.content)[:200],
            by="user",
        )
        batch = Batch(namespace=namespace)
        batch.add(
            old.model_copy(
                update={
                    "expired_at": now,
                    "replaced_by": [*old.replaced_by, swap],
                    "metadata": {**old.metadata, "corrected_by": new.id},
                }
            )
        )
        for f in retired:
            batch.add(f)
        audit = {"action": "correct", "by": by, "at": now.isoformat(), "old": old.id}
        batch.docs.append(Doc(AUDIT, new_id(), audit | {"new": new.id}, created_at=now))
        self.store.apply(batch)
        return Correction(namespace, old.id, new.id, [f.id for f in retired])
