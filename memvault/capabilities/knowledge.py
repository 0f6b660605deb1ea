"""The knowledge capability of the SDK facade (``vault.knowledge``): facts (valid now, as of a
time, with history; the contested ones), the entity graph, and the namespace's own entity types
beside the built-in ones (memvault.kg.vocabulary says how the write path uses them)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from pydantic import ValidationError

from memvault.clock import ensure_utc
from memvault.container import Capability, Facade
from memvault.errors import InvalidInputError, NotFoundError
from memvault.kg.model import Fact, fact_order, normalize_predicate
from memvault.kg.store import Batch, Doc, FactQuery
from memvault.kg.vocabulary import (
    BUILT_IN,
    BUILT_IN_TYPES,
    ENTITY_TYPE,
    EntityTypeDef,
    from_docs,
    own_types,
)

if TYPE_CHECKING:
    from memvault.graphs import GraphView
    from memvault.recall import Recaller

_WHAT = {
    "name": "must be lower-case letters, digits or _, starting with a letter, at most 40",
    "description": "must say what the type is, in 1 to 500 characters",
    "cues": "must be at most 50 words of letters, at most 40 characters each",
}


class KnowledgeFacade(Facade, Protocol):
    """What the knowledge capability reads of the facade beyond the container: the
    recaller, whose rule says which predicates hold one value at a time (contested facts)."""

    recaller: Recaller


class Knowledge(Capability[KnowledgeFacade]):
    def facts(
        self,
        *,
        namespace: str | None = None,
        subject: str | None = None,
        predicate: str | None = None,
        as_of: datetime | None = None,
        include_history: bool = False,
        limit: int = 1000,
    ) -> list[Fact]:
        """Facts, filtered. By default those valid now; ``as_of`` those valid then;
        ``include_history`` every fact ever stored, superseded and retired ones too."""
        ns = self.ns(namespace)
        for name, value in (("subject", subject), ("predicate", predicate)):
            if value is not None and not value.strip():
                raise InvalidInputError(
                    "is empty (only whitespace)", field=name, hint="name one, or leave it out"
                )
        subject_ids = None
        if subject is not None:
            subject_ids = [e.id for e in self.store.find_entities(ns, [subject])]
        query = FactQuery(
            subject_ids=subject_ids,
            predicate=normalize_predicate(predicate) if predicate else None,
            # an as-of read answers what was believed then: facts retired since count
            include_expired=include_history or as_of is not None,
            limit=100_000,
        )
        found = self.store.list_facts(ns, query)
        if include_history:
            return found[:limit]
        if as_of is not None:
            at = ensure_utc(as_of, "as_of")
            believed: dict[tuple[str, str, str], Fact] = {}
            for f in sorted(found, key=lambda f: (f.expired_at is not None, *fact_order(f))):
                if f.believed_at(at):  # exact duplicates a dream merged since: listed once
                    believed.setdefault(f.key(), f)
            return list(believed.values())[:limit]
        now = self.now()
        return [f for f in found if f.is_valid_at(now)][:limit]

    def contested(
        self, *, namespace: str | None = None, as_of: datetime | None = None
    ) -> dict[str, Fact]:
        """Between dreams two values of a single-valued predicate can both be valid, and so
        can two opposite statements about one object (likes / dislikes): each older one (id)
        → the newer fact contesting it, provisional until the dream's verdict. Recall ranks
        the newer first."""
        from memvault.recall.currency import contested

        ns = self.ns(namespace)
        at = ensure_utc(as_of, "as_of") if as_of else self.now()
        live = self.store.list_facts(ns, FactQuery(limit=100_000))
        recaller = self.vault.recaller
        return contested(live, at, recaller.single_valued, recaller.opposites)

    def graph(self, *, namespace: str | None = None) -> GraphView:
        """The namespace's entity graph: ``.edges()``, ``.communities()``, ``.scan()``,
        ``.ppr(names)``. Read-only; computed from what the store holds now."""
        from memvault.changes.workspace import Workspace
        from memvault.graphs import GraphView

        ns = self.ns(namespace)
        ws = Workspace.load(self.store, ns, self.now())
        return GraphView.load(self.store, ws, self.settings.graph)

    def entity_types(self, *, namespace: str | None = None) -> list[EntityTypeDef]:
        """The built-in entity types, then the namespace's own, by name."""
        own = own_types(self.store, self.ns(namespace))
        return [*BUILT_IN_TYPES, *(own[name] for name in sorted(own))]

    def define_entity_type(
        self,
        name: str,
        description: str,
        *,
        cues: Sequence[str] = (),
        namespace: str | None = None,
    ) -> EntityTypeDef:
        """Define (or redefine) an entity type of the namespace's own: a model that extracts
        is shown its description; offline, a name right after one of its ``cues`` ("my dog
        Pepper" for cues ``dog``) takes it. Entities written before keep their type."""
        ns = self.ns(namespace)
        try:
            defined = EntityTypeDef(name=name, description=description.strip(), cues=list(cues))
        except ValidationError as exc:
            field = str((exc.errors()[0].get("loc") or ("type",))[0])
            raise InvalidInputError(_WHAT.get(field, "is not usable"), field=field) from None
        if defined.name in BUILT_IN:
            raise InvalidInputError(
                f"{name!r} is a built-in type", field="name", hint="choose another name"
            )
        body = defined.model_dump(exclude={"name", "built_in"})
        doc = Doc(
            kind=ENTITY_TYPE, id=defined.name, body=body, status="active", created_at=self.now()
        )
        self.store.apply(Batch(namespace=ns, docs=[doc], quiet=True))
        return defined

    def remove_entity_type(self, name: str, *, namespace: str | None = None) -> EntityTypeDef:
        """Stop using one of the namespace's own types: entities given it keep it (what was
        said is not rewritten), new ones are no longer given it."""
        ns = self.ns(namespace)
        found = from_docs(self.store.get_docs(ns, ENTITY_TYPE, [name]))
        if name not in found:
            raise NotFoundError("entity type", name, ns)
        self.store.apply(Batch(namespace=ns, drop_docs=[(ENTITY_TYPE, name)], quiet=True))
        return found[name]
