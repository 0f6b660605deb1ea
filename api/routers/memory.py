"""Writing, reading, recall and feedback of one namespace."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from api.deps import Jobs, Limit, Namespace, Offset, Vault, first, paged
from api.schemas import (
    EpisodesIn,
    FactsIn,
    FeedbackIn,
    HitOut,
    Page,
    RecallIn,
    RecallOut,
    SessionTurnsIn,
    VerdictIn,
)
from memvault.clock import UtcDatetime
from memvault.errors import CoordinationUnavailable
from memvault.ingest.pipeline import WriteResult

log = logging.getLogger(__name__)
router = APIRouter(prefix="/v1/ns/{namespace}", tags=["memory"])


def _prefetch(vault: Any, jobs: Any, ns: str, sessions: set[str]) -> None:
    """Queue the sessions' prefetch (off the request path); a queue that cannot take it
    costs only the warm cache, never the write."""
    if not vault.settings.prefetch.enabled:
        return
    for session_id in sorted(sessions):
        try:
            jobs.submit_prefetch(ns, session_id)
        except CoordinationUnavailable:
            log.warning("prefetch not queued for %s/%s: the job queue is unavailable", ns,
                        session_id)  # fmt: skip


def queue_catch_up(jobs: Any, ns: str, pending: int) -> None:
    """A deferred write's vectors are a job for the worker (whoever takes the namespace's
    catch-up lock first does it; the others find nothing left). A queue that cannot take it
    now loses nothing: the marks stay and the periodic check queues them again."""
    if pending:
        try:
            jobs.submit_catch_up(ns)
        except CoordinationUnavailable:
            log.warning("catch-up not queued for %s: the job queue is unavailable", ns)


@router.post("/episodes", response_model=WriteResult, status_code=201)
def write_episodes(
    body: EpisodesIn,
    ns: Namespace,
    vault: Vault,
    jobs: Jobs,
    defer_vectors: Annotated[
        bool | None,
        Query(
            description="Return before the meaning vectors exist (found by words at once, by "
            "meaning after catch-up; `vectors_pending` in the answer). Default: the server's "
            "`defer_vectors` setting is `always`."
        ),
    ] = None,
    rules_only: Annotated[
        bool | None,
        Query(
            description="Extract entities and facts with the offline rules even when a model "
            "is configured. Default: the server's `extract_with_rules` setting."
        ),
    ] = None,
) -> WriteResult:
    """Write episodes (turns, observations, notes) in one transaction: all or nothing. The
    sessions written to get their next questions prefetched (a background job)."""
    result = vault.write_many(
        body.items, namespace=ns, defer_vectors=defer_vectors, rules_only=rules_only
    )
    queue_catch_up(jobs, ns, result.vectors_pending)
    _prefetch(vault, jobs, ns, {i.session_id for i in body.items if i.session_id})
    return result


@router.post("/sessions/{session_id}/episodes", response_model=WriteResult, status_code=201)
def write_session(
    body: SessionTurnsIn,
    ns: Namespace,
    vault: Vault,
    jobs: Jobs,
    session_id: Annotated[str, Path(min_length=1, max_length=256)],
) -> WriteResult:
    """Write the turns of one session (created on first write), in order; the session's
    next questions are prefetched (a background job)."""
    items = [item.model_copy(update={"session_id": session_id}) for item in body.items]
    result = vault.write_many(items, namespace=ns)
    queue_catch_up(jobs, ns, result.vectors_pending)
    _prefetch(vault, jobs, ns, {session_id})
    return result


@router.post("/facts", response_model=WriteResult, status_code=201)
def write_facts(body: FactsIn, ns: Namespace, vault: Vault) -> WriteResult:
    """Write structured facts (subject, predicate, object, validity)."""
    facts = vault.add_facts(body.items, namespace=ns)
    return WriteResult(episode_ids=[], fact_ids=[f.id for f in facts], facts_created=len(facts))


@router.get("/episodes", response_model=Page)
def list_episodes(
    ns: Namespace,
    vault: Vault,
    limit: Limit = 100,
    offset: Offset = 0,
    session_id: Annotated[str | None, Query(max_length=256)] = None,
) -> Page:
    """Episodes in time order (optionally of one session)."""
    return paged(
        lambda n, skip: vault.episodes(namespace=ns, session_id=session_id, limit=n, offset=skip),
        limit,
        offset,
    )


@router.get("/episodes/{episode_id}")
def get_episode(
    ns: Namespace, vault: Vault, episode_id: Annotated[str, Path(max_length=256)]
) -> dict[str, Any]:
    return vault.get_episode(episode_id, namespace=ns).model_dump(mode="json")


@router.get("/facts", response_model=Page)
def list_facts(
    ns: Namespace,
    vault: Vault,
    limit: Limit = 100,
    offset: Offset = 0,
    subject: Annotated[str | None, Query(max_length=256)] = None,
    predicate: Annotated[str | None, Query(max_length=128)] = None,
    as_of: Annotated[UtcDatetime | None, Query(description="Facts valid then.")] = None,
    include_history: bool = False,
) -> Page:
    """Facts valid now (or at ``as_of``); ``include_history`` adds superseded ones."""
    return paged(
        first(
            lambda n: vault.facts(
                namespace=ns,
                subject=subject,
                predicate=predicate,
                as_of=as_of,
                include_history=include_history,
                limit=n,
            )
        ),
        limit,
        offset,
    )


@router.post("/recall", response_model=RecallOut)
def recall(body: RecallIn, ns: Namespace, vault: Vault) -> RecallOut:
    """The best memories for a query, each with its score (and, asked, how it was made)."""
    hits = vault.recall(
        body.query,
        namespace=ns,
        k=body.k,
        as_of=body.as_of,
        persona=body.persona,
        session_id=body.session_id,
    )
    used = [h.id for h in hits if h.kind != "persona"]
    if body.record_access and used:
        vault.record_access(used, namespace=ns)
    return RecallOut(
        recall_id=hits.recall_id,
        hint=hits.hint,
        prefetched=hits.prefetched,
        vectors_pending=hits.vectors_pending,
        hits=[
            HitOut(
                kind=h.kind,
                id=h.id,
                text=h.text,
                score=h.score,
                source_episode_ids=h.source_episode_ids,
                tier=h.tier.value if h.tier else None,
                digest=h.digest,
                explanation=h.explanation.model_dump(mode="json") if body.explain else None,
                explanation_text=h.explanation.text() if body.explain else None,
            )
            for h in hits
        ],
    )


@router.post("/verdicts")
def verdict(body: VerdictIn, ns: Namespace, vault: Vault) -> dict[str, Any]:
    """How a recall went (correct / incorrect / ambiguous, for the answer or one hit); two
    incorrect answers to one question open a knowledge gap, a correct one closes it."""
    return vault.verdict(body.recall_id, body.verdict, hit_id=body.hit_id, namespace=ns)


@router.get("/profile")
def profile(ns: Namespace, vault: Vault) -> dict[str, Any]:
    """What the namespace has been about over 7 / 30 / 90 days, rising and cooling."""
    return vault.profile(namespace=ns)


@router.get("/diary")
def diary(ns: Namespace, vault: Vault, date: str | None = None) -> dict[str, Any]:
    """The diary page of ``date`` (YYYY-MM-DD, default today); 422 for another format."""
    return vault.diary(date=date, namespace=ns)


@router.get("/gaps")
def gaps(ns: Namespace, vault: Vault) -> list[dict[str, Any]]:
    """Knowledge gaps: recall failures and structural ones, each with its kind."""
    return vault.gaps(namespace=ns)


@router.post("/feedback")
def feedback(body: FeedbackIn, ns: Namespace, vault: Vault) -> dict[str, Any]:
    """access / reinforce count use; up / down / correct / incorrect judge a memory.
    Every id must exist, or nothing changes (404 naming the first missing one)."""
    changed = vault.judge(body.ids, body.signal, namespace=ns)
    return {"signal": body.signal, "updated": len(changed)}


@router.get("/stats")
def stats(ns: Namespace, vault: Vault) -> dict[str, Any]:
    return vault.stats(namespace=ns)
