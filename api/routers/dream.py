"""The dream, its runs, the review queue and the discovery inbox of one namespace."""

from __future__ import annotations

from pathlib import PurePath
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Response

from api.deps import Jobs, Limit, Namespace, Offset, Vault, first, paged
from api.schemas import (
    DecideIn,
    DreamIn,
    FoldIn,
    IdsIn,
    LifecycleIn,
    LintIn,
    Page,
    RejectIn,
    UndoIn,
)
from memvault.errors import NotFoundError
from memvault.jobs import dream_namespace
from memvault.primer import MIN_TOKENS

router = APIRouter(prefix="/v1/ns/{namespace}", tags=["dream"])
RunId = Annotated[str, Path(max_length=128)]
ItemId = Annotated[str, Path(max_length=128)]


@router.post("/dream", status_code=200)
def dream(
    body: DreamIn, ns: Namespace, vault: Vault, jobs: Jobs, response: Response
) -> dict[str, Any]:
    """A dry run (``apply: false``) is planned at once and returned. ``apply: true`` queues
    a job (202 with its id; poll ``/dream/jobs/{job_id}``); 503 when the queue is down."""
    if not body.apply:
        return {"status": "planned", **dream_namespace(vault.c, ns, apply=False, force=body.force)}
    jobs.check()
    job_id = jobs.submit_dream(ns, apply=True, force=body.force)
    response.status_code = 202
    return {"status": "queued", "job_id": job_id}


@router.post("/catch-up", status_code=202)
def catch_up(ns: Namespace, vault: Vault, jobs: Jobs) -> dict[str, Any]:
    """Queue the embedding of the memories that wait for their meaning vectors (deferred
    writes); poll ``/dream/jobs/{job_id}``. ``vectors_pending``: how many wait now."""
    jobs.check()
    return {
        "status": "queued",
        "job_id": jobs.submit_catch_up(ns),
        "vectors_pending": vault.vectors_pending(namespace=ns),
    }


@router.get("/dream/jobs/{job_id}")
def dream_job(
    ns: Namespace, jobs: Jobs, job_id: Annotated[str, Path(max_length=64)]
) -> dict[str, Any]:
    """queued | running | done (with the result) | failed (with the error)."""
    status = jobs.status(job_id)
    if status.get("namespace") not in (None, ns):
        raise NotFoundError("job", job_id, ns)
    return status


@router.get("/dream/runs", response_model=Page)
def runs(ns: Namespace, vault: Vault, limit: Limit = 20, offset: Offset = 0) -> Page:
    return paged(first(lambda n: vault.dream_runs(namespace=ns, limit=n)), limit, offset)


@router.get("/dream/runs/{run_id}")
def run_report(ns: Namespace, vault: Vault, run_id: RunId) -> dict[str, Any]:
    return vault.dream_report(run_id, namespace=ns)


@router.post("/dream/runs/{run_id}/undo")
def undo(body: UndoIn, ns: Namespace, vault: Vault, run_id: RunId) -> dict[str, Any]:
    """Restore every record the run changed (409 if one changed since; ``force`` to undo
    anyway)."""
    return {"run_id": run_id, "restored": vault.undo_dream(run_id, namespace=ns, force=body.force)}


@router.post("/lint")
def lint(body: LintIn, ns: Namespace, vault: Vault) -> dict[str, Any]:
    """The knowledge lint: structure, grounding (the server's ontology), llm. With
    ``propose``, fixes pass the three-stage check into the review queue."""
    report = vault.lint(namespace=ns, levels=body.levels, propose=body.propose)
    out = report.json(body.limit)
    out["ontology"] = [PurePath(p).name for p in out["ontology"]]  # no server paths
    return out


@router.get("/review", response_model=Page)
def review(
    ns: Namespace,
    vault: Vault,
    limit: Limit = 50,
    offset: Offset = 0,
    status: Annotated[
        Literal["pending", "approved", "rejected", "stale", "withdrawn", "all"], Query()
    ] = "pending",
) -> Page:
    """What the dream (or the lint) was unsure of, waiting for a human."""
    wanted = None if status == "all" else status
    return paged(
        first(lambda n: vault.review_items(namespace=ns, status=wanted, limit=n)), limit, offset
    )


@router.post("/review/decide")
def decide(body: DecideIn, ns: Namespace, vault: Vault) -> dict[str, Any]:
    """Approve or reject in bulk the pending items matching every filter (a reason code, an
    op, a run id, or ``every``); a dry run unless ``dry_run`` is false. A stale item is
    reported under ``failed``; the others still go."""
    return vault.decide_reviews(
        body.decision,
        namespace=ns,
        reason=body.reason,
        op=body.op,
        run_id=body.run_id,
        every=body.every,
        dry_run=body.dry_run,
        note=body.note,
    )


@router.post("/review/{item_id}/approve")
def approve(ns: Namespace, vault: Vault, item_id: ItemId) -> dict[str, Any]:
    """Apply the item's changes through the journaled applier (409 if stale)."""
    return {"id": item_id, "status": "approved", "applied": vault.approve(item_id, namespace=ns)}


@router.post("/review/{item_id}/reject")
def reject(body: RejectIn, ns: Namespace, vault: Vault, item_id: ItemId) -> dict[str, Any]:
    vault.reject(item_id, namespace=ns, note=body.note)
    return {"id": item_id, "status": "rejected"}


@router.get("/inbox", response_model=Page)
def inbox(
    ns: Namespace,
    vault: Vault,
    limit: Limit = 50,
    offset: Offset = 0,
    status: Annotated[Literal["unseen", "seen", "dismissed", "all"], Query()] = "unseen",
) -> Page:
    """Discoveries (what frontends poll): bridges, hidden links, knowledge gaps."""
    wanted = None if status == "all" else status
    return paged(first(lambda n: vault.inbox(namespace=ns, status=wanted, limit=n)), limit, offset)


@router.post("/inbox/seen")
def inbox_seen(body: IdsIn, ns: Namespace, vault: Vault) -> dict[str, Any]:
    return {"marked": vault.mark_inbox(body.ids, "seen", namespace=ns), "status": "seen"}


@router.post("/inbox/dismiss")
def inbox_dismiss(body: IdsIn, ns: Namespace, vault: Vault) -> dict[str, Any]:
    return {"marked": vault.mark_inbox(body.ids, "dismissed", namespace=ns), "status": "dismissed"}


@router.post("/fold")
def fold(body: FoldIn, ns: Namespace, vault: Vault) -> dict[str, Any]:
    """Fold new episodes into each memory type's digest (a dry run unless ``apply``);
    ``undo``: each type's digest as it was before its last run (a preview unless ``apply``)."""
    if body.undo:
        undone = vault.undo_fold(namespace=ns, apply=body.apply)
        return {"namespace": ns, "applied": body.apply, "undone": undone}
    report = vault.fold(namespace=ns, apply=body.apply, rebuild=body.rebuild)
    return {"namespace": ns, "applied": report.applied, "types": report.per_type}


@router.post("/tiers")
def tiers(body: LifecycleIn, ns: Namespace, vault: Vault) -> dict[str, Any]:
    """Episodes per type, tier and level, and the tier moves (applied as an undoable run of
    their own with ``apply``; cold and frozen drop text one way: docs/tiers.md)."""
    return vault.tiers(namespace=ns, apply=body.apply)


@router.post("/janitor")
def janitor(body: LifecycleIn, ns: Namespace, vault: Vault) -> dict[str, Any]:
    """The hygiene janitor now, then prune and tiers (a dry run unless ``apply``)."""
    return vault.janitor(namespace=ns, apply=body.apply)


@router.get("/primer")
def primer(
    ns: Namespace,
    vault: Vault,
    budget: Annotated[int | None, Query(ge=MIN_TOKENS, le=100_000)] = None,
    project: Annotated[str | None, Query(max_length=128)] = None,
) -> dict[str, Any]:
    """The block an agent loads at session start, within ``budget`` tokens (o200k_base, or
    characters / 4 without a tokenizer); ``project``: that project's digests first."""
    return vault.primer(namespace=ns, budget_tokens=budget, project=project).to_dict()
