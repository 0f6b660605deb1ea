"""The write path, one batch at a time: validate → normalise → exact-duplicate gate →
extract (LLM port) → resolve entities → facts (new or reinforced) → embed → one commit.

Nothing is stored unless the whole batch is valid and commits; acknowledged after the commit.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from memvault.clock import ensure_utc
from memvault.embed import Embedder
from memvault.errors import InvalidBatchError, InvalidInputError, Problem
from memvault.ingest.catchup import pending_docs
from memvault.ingest.chunking import vectors_of
from memvault.ingest.extraction import DERIVATION_ERRORS, extract_all
from memvault.ingest.gate import hold_for_review
from memvault.ingest.inputs import EpisodeIn, FactIn, parse_facts, parse_items
from memvault.ingest.normalize import normalize_content
from memvault.ingest.resolve import NAME_LIMIT, Entities, Facts
from memvault.kg.forgotten import load as load_forgotten
from memvault.kg.model import (
    Episode,
    Fact,
    Mention,
    Session,
    content_hash,
)
from memvault.kg.store import Batch, Doc, Store
from memvault.kg.vocabulary import own_types
from memvault.language.text import CHUNK_CHARS
from memvault.llm import LLM
from memvault.llm.prompts import ExtractedFact

log = logging.getLogger(__name__)


def skip_reason(what: str, exc: Exception) -> str:
    """One short, stable line per kind of failure, the key of ``WriteResult.skipped``."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        return f"{what}: {first.get('type', 'invalid')}" + (f" ({where})" if where else "")
    return f"{what}: {type(exc).__name__}"


@dataclass
class WriteResult:
    episode_ids: list[str]  # aligned with the input items; a duplicate maps to the stored one
    created: int = 0
    duplicates: int = 0
    truncated: int = 0
    entities_created: int = 0
    facts_created: int = 0
    facts_reinforced: int = 0
    watermark: int = 0
    fact_ids: list[str] = field(default_factory=list)
    facts_held: int = 0  # waiting in the review queue (hold_facts_below)
    vectors_pending: int = 0  # written without meaning vectors yet (memvault.ingest.catchup)
    # derivations skipped on text they could not read, by reason: the memories were written
    skipped: dict[str, int] = field(default_factory=dict)
    # records that are forgotten memories said again (memvault.kg.forgotten): not written
    forgotten: int = 0

    def skip(self, what: str, exc: Exception, n: int = 1) -> None:
        reason = skip_reason(what, exc)
        self.skipped[reason] = self.skipped.get(reason, 0) + n
        log.warning("write: %s skipped (%s); the memory is stored", what, exc)


class Writer:
    def __init__(
        self,
        *,
        store: Store,
        embedder: Embedder,
        llm: LLM,
        max_chars: int,
        chunk_chars: int = CHUNK_CHARS,
        hold_below: float = 0.0,
        due_days: float = 7.0,
        on_episodes: Callable[[str, list[Episode]], list[Doc]] | None = None,
        rules: LLM | None = None,
    ):
        """``on_episodes``: documents to write with each batch of new episodes, in the same
        transaction (the persona layers' rules)."""
        self.store, self.embedder, self.llm, self.max_chars = store, embedder, llm, max_chars
        self.hold_below, self.due_days = hold_below, due_days
        self.chunk_chars = chunk_chars
        self.on_episodes = on_episodes
        self.rules = rules  # the offline rules, for writes that must not call the model

    # -- episodes -------------------------------------------------------------------------
    def write_episodes(
        self,
        namespace: str,
        items: Sequence[EpisodeIn | Mapping[str, Any]],
        *,
        now: datetime,
        labels: Sequence[str] | None = None,
        defer_vectors: bool = False,
        rules_only: bool = False,
    ) -> WriteResult:
        """``defer_vectors``: commit without meaning vectors (the episodes', and those of the
        facts and entities the write creates) and mark them for catch-up.
        ``rules_only``: extract with the offline rules, never the configured model."""
        result = WriteResult(episode_ids=[])
        episodes, problems = self._prepare(namespace, items, labels, now, result)
        if problems:
            raise InvalidBatchError(problems, what="the write")
        fresh = self._gate(namespace, episodes, result)
        if not fresh:
            result.watermark = self.store.watermark(namespace)
            return result
        batch = Batch(namespace=namespace, episodes=fresh)
        own = own_types(self.store, namespace)
        entities = Entities(self.store, namespace, now, own)
        facts = Facts(self.store, namespace, now)
        llm = self.rules if rules_only and self.rules is not None else self.llm
        extractions = extract_all(llm, fresh, own, result.skip)
        entities.prepare(fresh, extractions)
        for episode, extraction in zip(fresh, extractions, strict=True):
            try:
                mentioned = {
                    entities.resolve(x.name, x.type, episode.occurred_at).id: None
                    for x in extraction.entities
                    if entities.keeps(x)
                }
                derived = [
                    self._fact_from_extraction(namespace, xf, episode, entities, now)
                    for xf in extraction.facts
                ]
            except DERIVATION_ERRORS as exc:
                result.skip("entities and facts", exc)
                continue
            for entity_id in mentioned:
                batch.mentions.append(
                    Mention(namespace=namespace, episode_id=episode.id, entity_id=entity_id)
                )
            for fact in derived:
                facts.add(fact)
        facts.settle()
        for entity_id, n in Counter(m.entity_id for m in batch.mentions).items():
            found = entities.new.get(entity_id) or entities.touched.get(entity_id)
            if found is not None:
                found.mention_count += n
        batch.sessions = self._sessions(namespace, fresh)  # also sets positions
        batch.entities = entities.changed()
        created = [f for f in facts.created.values() if f.confidence >= self.hold_below]
        held = [f for f in facts.created.values() if f.confidence < self.hold_below]
        batch.facts = [*created, *facts.reinforced.values()]
        named = list(entities.new.values())
        batch.docs = hold_for_review(namespace, held, now, self.hold_below, self.due_days)
        if defer_vectors:  # everything waits for catch-up, listed on its episode's mark
            first = {m.entity_id: m.episode_id for m in reversed(batch.mentions)}
            batch.docs += pending_docs(fresh, now, created, named, first)
            result.vectors_pending = len(fresh)
        else:
            batch.vectors = vectors_of(self.embedder, [*fresh, *created, *named], self.chunk_chars)
        if self.on_episodes is not None:  # e.g. the persona rules: in the same transaction
            try:
                batch.docs += self.on_episodes(namespace, fresh)
            except DERIVATION_ERRORS as exc:
                result.skip("persona", exc, len(fresh))
        result.watermark = self.store.apply(batch)
        result.created = len(fresh)
        result.entities_created = len(entities.new)
        result.facts_created = len(created)
        result.facts_held = len(held)
        result.facts_reinforced = len(facts.reinforced)
        result.fact_ids = [f.id for f in batch.facts]
        return result

    def check(
        self,
        namespace: str,
        items: Sequence[EpisodeIn | Mapping[str, Any]],
        labels: Sequence[str] | None = None,
        *,
        now: datetime,
    ) -> list[Problem]:
        """What would make these items fail to write; writes nothing."""
        return self._prepare(namespace, items, labels, now, WriteResult(episode_ids=[]))[1]

    def _prepare(
        self,
        namespace: str,
        items: Sequence[EpisodeIn | Mapping[str, Any]],
        labels: Sequence[str] | None,
        now: datetime,
        result: WriteResult,
    ) -> tuple[list[Episode], list[Problem]]:
        parsed, problems = parse_items(items, labels)
        episodes: list[Episode] = []
        for where, item in parsed:
            try:
                episodes.append(self._episode(namespace, item, now, result))
            except InvalidInputError as exc:
                problems.append(Problem(where, str(exc)))
        order = {
            label: i for i, label in enumerate(labels or [f"item {i}" for i in range(len(items))])
        }
        problems.sort(key=lambda p: order.get(p.where, 0))
        return episodes, problems

    def _episode(
        self, namespace: str, item: EpisodeIn, now: datetime, result: WriteResult
    ) -> Episode:
        text, truncated = normalize_content(item.content, limit=self.max_chars)
        result.truncated += int(truncated)
        occurred = ensure_utc(item.occurred_at) if item.occurred_at else now
        speaker = item.speaker.strip() if item.speaker and item.speaker.strip() else None
        return Episode(
            namespace=namespace,
            content=text,
            type=item.type,
            speaker=speaker,
            session_id=item.session_id,
            external_id=item.external_id,
            content_hash=content_hash(namespace, item.session_id, speaker, text),
            occurred_at=occurred,
            created_at=now,
            importance=item.importance,
            permanent=item.permanent,
            metadata={**item.metadata, **({"truncated": True} if truncated else {})},
        )

    def _gate(self, namespace: str, episodes: list[Episode], result: WriteResult) -> list[Episode]:
        """Drop exact duplicates (same external id, or same words by the same speaker in the
        same session), within the batch and against the store; map them to the kept id.
        Leave out forgotten memories said again (no id for them)."""
        by_external = self.store.episodes_by_external_id(
            namespace, [e.external_id for e in episodes if e.external_id]
        )
        by_hash = self.store.episodes_by_hash(namespace, [e.content_hash for e in episodes])
        forgotten = load_forgotten(self.store, namespace)
        fresh: list[Episode] = []
        for e in episodes:
            if forgotten and forgotten.matches(e):
                result.forgotten += 1  # erased by a forget: a replay never brings it back
                continue
            if e.external_id:
                kept = by_external.get(e.external_id)
            else:
                kept = by_hash.get(e.content_hash)
            if kept is not None:
                result.duplicates += 1
                result.episode_ids.append(kept)
                continue
            by_hash.setdefault(e.content_hash, e.id)
            if e.external_id:
                by_external[e.external_id] = e.id
            fresh.append(e)
            result.episode_ids.append(e.id)
        return fresh

    def _fact_from_extraction(
        self,
        namespace: str,
        xf: ExtractedFact,
        episode: Episode,
        entities: Entities,
        now: datetime,
    ) -> Fact:
        subject = entities.resolve(
            xf.subject,
            "person" if xf.subject == episode.speaker else "unknown",
            episode.occurred_at,
        )
        obj = (
            entities.resolve(xf.object, "unknown", episode.occurred_at)
            if xf.object_is_entity and len(xf.object.strip()) <= NAME_LIMIT
            else None
        )
        return Fact(
            namespace=namespace,
            subject_id=subject.id,
            subject=subject.name,
            predicate=xf.predicate,
            object=xf.object,
            object_id=obj.id if obj else None,
            statement=xf.statement,
            confidence=xf.confidence,
            importance=episode.importance,
            valid_at=episode.occurred_at,
            created_at=now,
            source_episode_ids=[episode.id],
            source_session_ids=[episode.session_id] if episode.session_id else [],
        )

    def _sessions(self, namespace: str, episodes: list[Episode]) -> list[Session]:
        grouped: dict[str, list[Episode]] = {}
        for e in episodes:
            if e.session_id:
                grouped.setdefault(e.session_id, []).append(e)
        stored = {s.id: s for s in self.store.get_sessions(namespace, list(grouped))}
        out = []
        for sid, members in grouped.items():
            first = min(e.occurred_at for e in members)
            last = max(e.occurred_at for e in members)
            s = stored.get(sid) or Session(
                id=sid, namespace=namespace, started_at=first, last_at=last
            )
            s.started_at, s.last_at = min(s.started_at, first), max(s.last_at, last)
            for offset, e in enumerate(sorted(members, key=lambda m: m.occurred_at)):
                e.position = s.episode_count + offset
            s.episode_count += len(members)
            out.append(s)
        return out

    # -- facts written directly -----------------------------------------------------------
    def write_facts(
        self, namespace: str, items: Sequence[FactIn | Mapping[str, Any]], *, now: datetime
    ) -> list[Fact]:
        parsed, problems = parse_facts(items, now=now)
        if problems:
            raise InvalidBatchError(problems, what="the facts")
        entities = Entities(self.store, namespace, now)
        entities.preload([f.subject for f in parsed] + [f.object for f in parsed])
        facts = Facts(self.store, namespace, now)
        out: list[Fact] = []
        for fi in parsed:
            valid = ensure_utc(fi.valid_at) if fi.valid_at else now
            subject = entities.resolve(fi.subject, fi.subject_type, valid)
            obj = entities.resolve(fi.object, "unknown", valid) if fi.object_is_entity else None
            predicate_words = fi.predicate.replace("_", " ").strip()
            out.append(
                facts.add(
                    Fact(
                        namespace=namespace,
                        subject_id=subject.id,
                        subject=subject.name,
                        predicate=fi.predicate,
                        object=fi.object.strip(),
                        object_id=obj.id if obj else None,
                        statement=fi.statement
                        or f"{subject.name} {predicate_words} {fi.object.strip()}",
                        confidence=fi.confidence,
                        importance=fi.importance,
                        valid_at=valid,
                        invalid_at=ensure_utc(fi.invalid_at) if fi.invalid_at else None,
                        created_at=now,
                        source_episode_ids=fi.source_episode_ids,
                        source_session_ids=[fi.session_id] if fi.session_id else [],
                    )
                )
            )
        facts.settle()
        batch = Batch(
            namespace=namespace,
            entities=entities.changed(),
            facts=[*facts.created.values(), *facts.reinforced.values()],
            vectors=vectors_of(
                self.embedder,
                [*facts.created.values(), *entities.new.values()],
                self.chunk_chars,
            ),
        )
        self.store.apply(batch)
        return out
