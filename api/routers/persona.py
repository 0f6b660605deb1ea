"""The persona layers of one namespace: attitudes and skills (docs/persona.md)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from api.deps import Namespace, Vault
from api.schemas import AttitudeIn, SkillUseIn
from memvault.clock import UtcDatetime

router = APIRouter(prefix="/v1/ns/{namespace}/persona", tags=["persona"])


@router.get("/attitudes")
def attitudes(
    ns: Namespace,
    vault: Vault,
    category: Annotated[str | None, Query(max_length=64)] = None,
    as_of: UtcDatetime | None = None,
    history: bool = False,
) -> list[dict[str, Any]]:
    """Current attitudes (``history``: every version with its status), at ``as_of``."""
    return vault.attitudes(namespace=ns, category=category, as_of=as_of, history=history)


@router.post("/attitudes", status_code=201)
def upsert_attitude(body: AttitudeIn, ns: Namespace, vault: Vault) -> dict[str, Any]:
    """A restatement corroborates; a change starts a new version (the old one is kept)."""
    return vault.upsert_attitude(namespace=ns, **body.model_dump())


@router.get("/skills")
def skills(
    ns: Namespace,
    vault: Vault,
    min_level: Annotated[str | None, Query(max_length=2)] = None,
    as_of: UtcDatetime | None = None,
) -> list[dict[str, Any]]:
    """Skills with their level (L1 exposure, L2 competent, L3 generative) and why."""
    return vault.skills(namespace=ns, min_level=min_level, as_of=as_of)


@router.post("/skills/uses", status_code=201)
def skill_use(body: SkillUseIn, ns: Namespace, vault: Vault) -> dict[str, Any]:
    """One use of a skill (read < do < teach / build), with the episode it shows in."""
    return vault.record_skill_use(namespace=ns, **body.model_dump())
