"""A namespace loaded into memory for one dream, recording every change as a value.

Stages read the current (already changed) records and call :meth:`Workspace.update` or
:meth:`Workspace.delete`; nothing reaches the store until the plan is applied. Later stages
see earlier stages' changes, so ops compose (a fact merged by consolidate is not culled
again by the janitor).
"""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any, TypeVar

from memvault.changes.plan import Change, ChangeKind, Impact, Reason
from memvault.kg.model import Entity, Episode, Fact, Mention, Session, normalize_name
from memvault.kg.persona import LIVE, Attitude, Skill
from memvault.kg.store import Store

R = TypeVar("R", Session, Episode, Entity, Fact, Attitude, Skill)
AnyRecord = Session | Episode | Entity | Fact | Attitude | Skill


def _kind(record: AnyRecord) -> ChangeKind:
    match record:
        case Episode():
            return "episode"
        case Fact():
            return "fact"
        case Entity():
            return "entity"
        case Attitude():
            return "attitude"
        case Skill():
            return "skill"
        case _:
            return "session"


class Workspace:
    def __init__(self, namespace: str, now: datetime):
        self.namespace = namespace
        self.now = now
        self.episodes: dict[str, Episode] = {}
        self.facts: dict[str, Fact] = {}
        self.entities: dict[str, Entity] = {}
        self.sessions: dict[str, Session] = {}
        self.attitudes: dict[str, Attitude] = {}
        self.skills: dict[str, Skill] = {}
        self.mentions: dict[str, set[str]] = defaultdict(set)  # episode id → entity ids
        self._before: dict[tuple[ChangeKind, str], dict[str, Any] | None] = {}
        self._reasons: dict[tuple[ChangeKind, str], list[Reason]] = {}
        self._deleted: set[tuple[ChangeKind, str]] = set()
        self._group: dict[tuple[ChangeKind, str], str] = {}

    @classmethod
    def load(cls, store: Store, namespace: str, now: datetime) -> Workspace:
        ws = cls(namespace, now)
        ws.add_records(store.iter_records(namespace))
        for d in store.list_docs(namespace, "attitude", status=LIVE, limit=1_000_000):
            ws.attitudes[d.id] = Attitude.model_validate(d.body)
        for d in store.list_docs(namespace, "skill", status=LIVE, limit=1_000_000):
            ws.skills[d.id] = Skill.model_validate(d.body)
        return ws

    def add_records(self, records: Iterable[Session | Episode | Entity | Fact | Mention]) -> None:
        for r in records:
            match r:
                case Mention():
                    self.mentions[r.episode_id].add(r.entity_id)
                case Episode():
                    self.episodes[r.id] = r
                case Fact():
                    self.facts[r.id] = r
                case Entity():
                    self.entities[r.id] = r
                case Session():
                    self.sessions[r.id] = r

    def _table(self, kind: ChangeKind) -> dict[str, Any]:
        tables: dict[str, dict[str, Any]] = {
            "episode": self.episodes,
            "fact": self.facts,
            "entity": self.entities,
            "session": self.sessions,
            "attitude": self.attitudes,
            "skill": self.skills,
        }
        return tables[kind]

    def _note(self, kind: ChangeKind, rid: str, reason: Reason, group: str | None) -> None:
        key = (kind, rid)
        if group is not None:
            self._group.setdefault(key, group)
        if key not in self._before:
            current = self._table(kind).get(rid)
            self._before[key] = current.model_dump(mode="json") if current else None
            self._reasons[key] = []
        self._reasons[key].append(reason)

    # -- the two moves ----------------------------------------------------------------------
    def update(
        self,
        record: R,
        op: str,
        why: str,
        *,
        certainty: float = 1.0,
        impact: Impact = "low",
        group: str | None = None,
        **changes: Any,
    ) -> R:
        """Propose ``changes`` to ``record``; returns the changed copy (now current)."""
        kind = _kind(record)
        reason = Reason(op=op, why=why, confidence=certainty, impact=impact)
        self._note(kind, record.id, reason, group)
        changed = _copied(record)
        for name, value in changes.items():
            setattr(changed, name, value)  # validated on assignment: bad values fail here
        self._table(kind)[record.id] = changed
        return changed

    def create(
        self,
        record: R,
        op: str,
        why: str,
        *,
        certainty: float = 1.0,
        impact: Impact = "low",
        group: str | None = None,
    ) -> R:
        """Propose a new record: an update of one the workspace does not hold yet (the
        change's before is None)."""
        return self.update(record, op, why, certainty=certainty, impact=impact, group=group)

    def delete(
        self,
        record: Session | Episode | Entity | Fact,
        op: str,
        why: str,
        *,
        certainty: float = 1.0,
        impact: Impact = "low",
        group: str | None = None,
    ) -> None:
        kind = _kind(record)
        reason = Reason(op=op, why=why, confidence=certainty, impact=impact)
        self._note(kind, record.id, reason, group)
        del self._table(kind)[record.id]
        self._deleted.add((kind, record.id))

    def delete_episode(
        self,
        episode: Episode,
        op: str,
        why: str,
        *,
        certainty: float = 1.0,
        impact: Impact = "low",
    ) -> None:
        """Delete an episode; each entity it mentioned counts one mention fewer."""
        group = f"delete:{episode.id}"
        self.delete(episode, op, why, certainty=certainty, impact=impact, group=group)
        for entity_id in sorted(self.mentions.pop(episode.id, set())):
            entity = self.entities.get(entity_id)
            if entity is not None and entity.mention_count > 0:
                self.update(
                    entity,
                    op,
                    f"one mention fewer: episode {episode.id} deleted",
                    certainty=certainty,
                    group=group,
                    mention_count=entity.mention_count - 1,
                )

    # -- read helpers -----------------------------------------------------------------------
    def get(self, kind: ChangeKind, rid: str) -> AnyRecord | None:
        return self._table(kind).get(rid)

    def speaker_entities(self) -> set[str]:
        """Ids of the entities that are the namespace's own speakers (by name or alias): the
        people talking are central and mentioned everywhere by construction, so they are
        neither a finding nor a gap."""
        speakers = {normalize_name(e.speaker) for e in self.episodes.values() if e.speaker}
        return {
            i
            for i, entity in self.entities.items()
            if speakers & {normalize_name(n) for n in entity.names()}
        }

    def live_facts(self) -> list[Fact]:
        """Facts the vault still holds as true now (not superseded, not retired)."""
        return [f for f in self.facts.values() if f.expired_at is None and f.invalid_at is None]

    def changes(self) -> list[Change]:
        out = []
        for (kind, rid), before in self._before.items():
            current = None if (kind, rid) in self._deleted else self._table(kind).get(rid)
            after = current.model_dump(mode="json") if current is not None else None
            if before == after:
                continue
            out.append(
                Change(
                    kind=kind,
                    target_id=rid,
                    before=before,
                    after=after,
                    reasons=self._reasons[(kind, rid)],
                    group=self._group.get((kind, rid)),
                )
            )
        return out


def _copied(record: R) -> R:
    """A copy of ``record`` with new top-level lists and dicts. Producers assign new values
    (or, at most, change those containers in place); nothing reaches deeper, and the state
    before is already kept as JSON. A deep copy cost a third of a 100k-fact dream."""
    changed = record.model_copy()
    for name, value in changed.__dict__.items():
        if isinstance(value, list | dict):
            changed.__dict__[name] = copy.copy(value)
    return changed
