"""A namespace's own entity types, beside the built-in ones (person, place, organization,
thing, concept, event): a name, a description a model reads, and cue words the offline rules
read ("pet": "an animal someone keeps", cues dog, cat, puppy). Kept as documents of kind
``entity_type`` (one per type, its name the id): a forget of the namespace scrubs them with
its other documents; the logical dump (version 4) carries them.

How they are used: a model that extracts is shown them with their descriptions (the
extraction prompt) and may answer with them; offline, a name right after one of a type's
cues ("my dog Pepper", "our cat Luna", "a greyhound called Pixel") takes that type, over
what the rules guessed. A type nobody defined, in a model's answer, is ``unknown``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memvault.kg.model import ENTITY_TYPE_PATTERN, EntityType
from memvault.kg.roles import DocumentStore
from memvault.kg.values import Doc

ENTITY_TYPE = "entity_type"  # document kind
BUILT_IN = frozenset(t.value for t in EntityType)
_DETERMINERS = r"(?:my|our|his|her|their|your|the|a|an)"


class EntityTypeDef(BaseModel):
    """One entity type of a namespace (``built_in``: one memvault always has)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=ENTITY_TYPE_PATTERN, description="lower-case, a-z 0-9 _")
    description: str = Field(min_length=1, max_length=500)
    cues: list[str] = Field(default_factory=list, max_length=50)
    built_in: bool = False

    @field_validator("cues", mode="before")
    @classmethod
    def _words(cls, cues: object) -> object:
        """Words of letters (spaces between them folded), at most 40 characters each: what
        a definition or an imported dump may hold."""
        if not isinstance(cues, list | tuple):
            return cues
        words = [" ".join(str(c).split()) for c in cues]
        if any(not w or len(w) > 40 or not w.replace(" ", "").isalpha() for w in words):
            raise ValueError("cues must be words of letters, at most 40 characters each")
        return words


BUILT_IN_TYPES: tuple[EntityTypeDef, ...] = tuple(
    EntityTypeDef(name=name, description=description, built_in=True)
    for name, description in (
        ("person", "a person (or a pet, unless the namespace defines its own type)"),
        ("place", "a place: a country, city, region, landmark or venue"),
        ("organization", "a company, club, school or other organisation"),
        ("thing", "a book, film, song, game or product"),
        ("concept", "a language, nationality, field or idea"),
        ("event", "a holiday or event"),
        ("unknown", "nothing says what kind of thing it is"),
    )
)


def own_types(store: DocumentStore, namespace: str) -> dict[str, EntityTypeDef]:
    """The namespace's own types, by name (one read of its documents)."""
    return from_docs(store.list_docs(namespace, ENTITY_TYPE, limit=1000))


def from_docs(docs: Sequence[Doc]) -> dict[str, EntityTypeDef]:
    """The namespace's own types from their documents, by name."""
    out = {}
    for d in docs:
        if d.kind == ENTITY_TYPE:
            out[d.id] = EntityTypeDef.model_validate({**d.body, "name": d.id})
    return out


def cued(text: str, name: str, own: Mapping[str, EntityTypeDef]) -> str | None:
    """The namespace's type whose cue word stands right before ``name`` in ``text`` ("my
    dog Pepper"), or None."""
    for t in own.values():
        for cue in t.cues:
            words = re.escape(cue.strip()).replace(r"\ ", r"\s+")
            pattern = (
                rf"\b{_DETERMINERS}\s+(?:\w+\s+)?{words}s?,?\s+(?:called\s+|named\s+)?"
                rf"{re.escape(name)}\b"
            )
            if words and re.search(pattern, text, re.IGNORECASE):
                return t.name
    return None


def known(value: str, own: Mapping[str, EntityTypeDef]) -> str:
    """``value`` if it is a built-in type or one of the namespace's, else ``unknown``."""
    v = value.strip().lower()
    return v if v in BUILT_IN or v in own else EntityType.UNKNOWN.value
