"""A namespace's own entity types (memvault.kg.vocabulary): list, define, remove."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field

from api.deps import Namespace, Vault
from memvault.kg.model import ENTITY_TYPE_PATTERN
from memvault.kg.vocabulary import EntityTypeDef

router = APIRouter(prefix="/v1/ns/{namespace}/entity-types", tags=["entity types"])
TypeName = Annotated[str, Path(pattern=ENTITY_TYPE_PATTERN)]


class EntityTypeIn(BaseModel):
    description: str = Field(min_length=1, max_length=500)
    cues: list[str] = Field(default_factory=list, max_length=50)


@router.get("")
def entity_types(ns: Namespace, vault: Vault) -> list[EntityTypeDef]:
    """The built-in entity types, then the namespace's own."""
    return vault.entity_types(namespace=ns)


@router.put("/{type_name}")
def define_entity_type(
    type_name: TypeName, body: EntityTypeIn, ns: Namespace, vault: Vault
) -> EntityTypeDef:
    """Define or redefine a type of the namespace's own (a built-in name is refused)."""
    return vault.define_entity_type(type_name, body.description, cues=body.cues, namespace=ns)


@router.delete("/{type_name}")
def remove_entity_type(type_name: TypeName, ns: Namespace, vault: Vault) -> EntityTypeDef:
    """Stop giving a type of the namespace's own; entities that have it keep it."""
    return vault.remove_entity_type(type_name, namespace=ns)
