"""Forget, erase a data subject, correct: :mod:`memvault.capabilities.forget`. Each needs a
write key; each is recorded (who: the key's id and name) in the namespace's audit
documents, never with the text."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from api.auth import Principal
from api.deps import Caller, Namespace, Vault
from api.schemas import CorrectIn, ForgetSubjectIn

router = APIRouter(prefix="/v1/ns/{namespace}", tags=["forget"])
EpisodeId = Annotated[str, Path(min_length=1, max_length=256)]


def _who(p: Principal) -> str:
    return f"key {p.key_id} ({p.name})"


@router.delete("/episodes/{episode_id}")
def forget(
    ns: Namespace,
    vault: Vault,
    caller: Caller,
    episode_id: EpisodeId,
    dry_run: Annotated[bool, Query(description="List what would go; change nothing.")] = False,
) -> dict[str, Any]:
    """Erase a memory and everything derived only from it (facts, entities, vectors, index
    rows, document text); what other memories also support stays. Cannot be undone, and
    undo of an earlier dream run does not bring it back. ``dry_run``: the plan only."""
    plan = vault.forget(episode_id, namespace=ns, dry_run=dry_run, by=_who(caller))
    return plan.to_dict()


@router.post("/forget")
def forget_subject(
    body: ForgetSubjectIn, ns: Namespace, vault: Vault, caller: Caller
) -> dict[str, Any]:
    """Everything about one person (a data subject): the memories naming them, the facts
    about them, their entity. A dry run unless ``dry_run`` is false."""
    plan = vault.forget_subject(body.subject, namespace=ns, dry_run=body.dry_run, by=_who(caller))
    return plan.to_dict()


@router.post("/episodes/{episode_id}/correct", status_code=201)
def correct(
    body: CorrectIn, ns: Namespace, vault: Vault, caller: Caller, episode_id: EpisodeId
) -> dict[str, Any]:
    """Write the corrected version of a memory; the old one is retired (kept in the
    history, marked as corrected) with the facts derived only from it."""
    return asdict(vault.correct(episode_id, body.text, namespace=ns, by=_who(caller)))
