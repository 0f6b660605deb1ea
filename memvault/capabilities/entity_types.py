"""A namespace's own entity types on the SDK facade (``MemVault`` inherits these): list them
beside the built-in ones, define or redefine one, remove one (memvault.kg.vocabulary says
how the write path uses them)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import ValidationError

from memvault.container import Container
from memvault.errors import InvalidInputError, NotFoundError
from memvault.kg.store import Batch, Doc
from memvault.kg.vocabulary import (
    BUILT_IN,
    BUILT_IN_TYPES,
    ENTITY_TYPE,
    EntityTypeDef,
    from_docs,
    own_types,
)

_WHAT = {
    "name": "must be lower-case letters, digits or _, starting with a letter, at most 40",
    "description": "must say what the type is, in 1 to 500 characters",
    "cues": "must be at most 50 words of letters, at most 40 characters each",
}


class EntityTypeMethods:
    c: Container

    def ns(self, namespace: str | None) -> str:
        raise NotImplementedError

    def now(self, now: datetime | None = None) -> datetime:
        raise NotImplementedError

    def entity_types(self, *, namespace: str | None = None) -> list[EntityTypeDef]:
        """The built-in entity types, then the namespace's own, by name."""
        own = own_types(self.c.store, self.ns(namespace))
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
        self.c.store.apply(Batch(namespace=ns, docs=[doc], quiet=True))
        return defined

    def remove_entity_type(self, name: str, *, namespace: str | None = None) -> EntityTypeDef:
        """Stop using one of the namespace's own types: entities given it keep it (what was
        said is not rewritten), new ones are no longer given it."""
        ns = self.ns(namespace)
        found = from_docs(self.c.store.get_docs(ns, ENTITY_TYPE, [name]))
        if name not in found:
            raise NotFoundError("entity type", name, ns)
        self.c.store.apply(Batch(namespace=ns, drop_docs=[(ENTITY_TYPE, name)], quiet=True))
        return found[name]
