"""Records for the store contract tests: an episode, an entity, a fact and a vector."""

from __future__ import annotations

from datetime import timedelta

import numpy as np

from memvault.kg.model import Entity, Episode, Fact, content_hash
from tests.conftest import T0

NS = "alice"


def episode(
    text: str,
    *,
    ns: str = NS,
    session: str | None = "s1",
    position: int | None = None,
    external_id: str | None = None,
    minutes: int = 0,
) -> Episode:
    return Episode(
        namespace=ns,
        content=text,
        session_id=session,
        position=position,
        external_id=external_id,
        content_hash=content_hash(ns, session, None, text),
        occurred_at=T0 + timedelta(minutes=minutes),
        created_at=T0,
    )


def entity(name: str, *, ns: str = NS, aliases: list[str] | None = None) -> Entity:
    return Entity(namespace=ns, name=name, aliases=aliases or [], created_at=T0, last_seen_at=T0)


def fact(subject: Entity, predicate: str, obj: str, **kw: object) -> Fact:
    return Fact(
        namespace=subject.namespace,
        subject_id=subject.id,
        subject=subject.name,
        predicate=predicate,
        object=obj,
        statement=f"{subject.name} {predicate} {obj}",
        valid_at=T0,
        created_at=T0,
        **kw,
    )


def vec(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float32)
