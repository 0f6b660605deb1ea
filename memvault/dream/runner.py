"""One dream of one namespace: gate → lock → the stages of ``dream.stages.STAGES`` in order
(load, files, orient, lint, signal, communities, reflect, consolidate, persona, maintenance,
janitor, prune, tiers) → plan, then (only when asked) apply through the changes layer, and
forget the text that compression dropped once its journal retention has passed.

``tiers`` runs the tier stage alone (``memvault tiers``), ``janitor`` the janitor, prune and
tiers (``memvault janitor``, or after writes on the ``onCapture`` schedule): the same plan,
routing, journal and undo as a dream, without the gate and without moving the dream's
watermark. An applied run with the janitor in it writes the janitor's snapshot.

Dry run is the default: the plan is returned and nothing is written. Gate state (last dream,
watermark) and the lock live in the coordination store.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from memvault.changes import policy
from memvault.changes.apply import Applier, ApplyResult
from memvault.changes.docs import rejected_ops
from memvault.changes.plan import Plan
from memvault.changes.retention import forget_dropped_text, release_journals
from memvault.changes.review import ReviewQueue
from memvault.changes.routing import route
from memvault.clock import ensure_utc
from memvault.container import Container
from memvault.coord.port import owner_id
from memvault.dream.consolidate import verdict_docs
from memvault.dream.gate import GateDecision, decide, state_key
from memvault.dream.stages import JANITOR_STAGES, STAGES, TIER_STAGES, Parts, Run, Stage
from memvault.ingest.catchup import CatchUpReport, drain, pending
from memvault.kg.store import Batch, Doc
from memvault.lint.runner import Linter, single_valued
from memvault.logs import bound
from memvault.profile.diary import write_snapshots

CATCH_UP_WAIT_S = 600.0  # the longest a dream waits for the vectors of what it judges
JANITOR = "janitor"  # the janitor's snapshot: one document per namespace, id "snapshot"


@dataclass
class DreamResult:
    namespace: str
    status: Literal["skipped", "planned", "applied"]
    gate: GateDecision
    plan: Plan | None = None
    report: dict[str, Any] = field(default_factory=dict)
    review_ids: list[str] = field(default_factory=list)
    applied: ApplyResult | None = None

    @property
    def run_id(self) -> str | None:
        return self.plan.run_id if self.plan else None


class Dreamer:
    def __init__(self, c: Container):
        self.c = c
        self.s = c.settings.dream
        self.applier = Applier(c.store, c.embedder, self.s.consolidate, self.s.review)
        self.queue = ReviewQueue(self.applier)

    def gate(self, namespace: str, now: datetime, *, force: bool = False) -> GateDecision:
        state = self.c.coord.get(state_key(namespace)) or {}
        last = (
            ensure_utc(datetime.fromisoformat(state["last_dream_at"]))
            if state.get("last_dream_at")
            else None
        )
        # what is new is what the vault learned since the last dream's watermark (as orient
        # reads it): a history imported after a dream counts, whenever it happened
        mark = state.get("watermark") if last is not None else None
        return decide(
            last_dream_at=last,
            sessions_since=self.c.store.sessions_written_since(namespace, mark),
            days_without_session=self.c.store.days_without_session_written_since(namespace, mark),
            now=now,
            settings=self.s.gate,
            force=force,
        )

    def dream(
        self,
        namespace: str,
        *,
        now: datetime,
        apply: bool = False,
        force: bool = False,
        on_chunk: Callable[[int], None] | None = None,
        skip_files: bool = False,
    ) -> DreamResult:
        decision = self.gate(namespace, now, force=force)
        if not decision.open:
            return DreamResult(namespace=namespace, status="skipped", gate=decision)
        return self._run(
            namespace, now, STAGES, decision, apply=apply, on_chunk=on_chunk, skip_files=skip_files
        )

    def tiers(self, namespace: str, *, now: datetime, apply: bool = False) -> DreamResult:
        """The tier stage alone, as a run of its own (no gate; the dream's state untouched)."""
        decision = GateDecision(open=True, forced=True, reasons=["tiers only"])
        return self._run(namespace, now, TIER_STAGES, decision, apply=apply)

    def janitor(self, namespace: str, *, now: datetime, apply: bool = False) -> DreamResult:
        """The janitor, then prune and tiers, as a run of its own, whatever its schedule."""
        decision = GateDecision(open=True, forced=True, reasons=["janitor"])
        return self._run(namespace, now, JANITOR_STAGES, decision, apply=apply)

    def janitor_snapshot(self, namespace: str) -> dict[str, Any] | None:
        found = self.c.store.get_docs(namespace, JANITOR, ["snapshot"])
        return found[0].body if found else None

    def _save_janitor(self, namespace: str, stage: dict[str, Any], run_id: str) -> None:
        """Seed 002's snapshot, overwritten each run: when it ran, after how many turns, how
        many runs so far, and what its last run culled (facts), handed to the tiers
        (episodes past the TTL) and marked stale."""
        before = self.janitor_snapshot(namespace) or {}
        body = {
            "lastRunAt": stage["ran_at"],
            "lastRunTurn": self.c.store.counts(namespace)["episodes"],
            "totalRuns": int(before.get("totalRuns", 0)) + 1,
            "lastCulledFactIds": stage["culled"],
            "lastCulledEpisodeIds": stage["cold"],
            "lastMarkedStaleEpisodeIds": stage["marked_stale"],
            "lastRunId": run_id,
            "schedule": self.s.hygiene.schedule,
        }
        doc = Doc(JANITOR, "snapshot", body)
        self.c.store.apply(Batch(namespace=namespace, docs=[doc]))

    def capture(self, namespace: str, now: datetime) -> DreamResult | None:
        """On the ``onCapture`` schedule, after a write: the janitor's run once enough new
        episodes arrived since its last (``capture_every_turns``); else nothing."""
        h = self.s.hygiene
        if h.schedule != "onCapture" or not h.enabled:
            return None
        last = int((self.janitor_snapshot(namespace) or {}).get("lastRunTurn", 0))
        if self.c.store.counts(namespace)["episodes"] - last < h.capture_every_turns:
            return None
        return self.janitor(namespace, now=now, apply=True)

    def _run(
        self,
        namespace: str,
        now: datetime,
        stages: tuple[Stage, ...],
        decision: GateDecision,
        *,
        apply: bool,
        on_chunk: Callable[[int], None] | None = None,
        skip_files: bool = False,
    ) -> DreamResult:
        owner = owner_id()
        with self.c.coord.locked(f"dream-lock:{namespace}", owner, self.s.gate.lock_ttl_s):
            resumed = self.applier.resume(namespace) if apply else []
            caught = None
            if apply:
                self.queue.requeue_overdue(namespace, now)
                caught = self._catch_up(namespace)
            plan, report = self.plan(namespace, now, stages, skip_files=skip_files)
            report["gate"] = {"forced": decision.forced, "reasons": decision.reasons}
            report["vectors"] = {
                "pending": pending(self.c.store, namespace),
                **({"caught_up": caught.embedded} if caught else {}),
            }
            report["resumed_runs"] = [r.run_id for r in resumed]
            if not apply:
                return DreamResult(
                    namespace=namespace, status="planned", gate=decision, plan=plan, report=report
                )
            _, reviews = self.applier.record(plan, report)
            with bound(run_id=plan.run_id, namespace=namespace):  # on every line it logs
                applied = self.applier.run(namespace, plan.run_id, on_chunk=on_chunk)
            remember = report["stages"].get("consolidate", {}).get("remember", [])
            if remember:  # sure COEXIST verdicts: not asked again until the evidence changes
                docs = verdict_docs(remember, plan.run_id)
                self.c.store.apply(Batch(namespace=namespace, docs=docs, quiet=True))
            forget_dropped_text(self.c.store, namespace, now, self.s.tiers.journal_retention_days)
            release_journals(self.c.store, namespace, now, self.s.undo_days)
            if plan.changes:  # rewritten rows leave their old terms in the keyword index
                self.c.store.compact_indexes()
            janitor = report["stages"].get("janitor", {})
            if janitor.get("ran_at"):
                self._save_janitor(namespace, janitor, plan.run_id)
            self.c.store.prepare_search(
                namespace
            )  # the worker builds the vector index, not a recall
            if stages is STAGES:  # a whole dream: the gate's state moves on, the diary's page
                write_snapshots(self.c.store, namespace, now, self.c.settings.profile, self.c.llm)
                self.c.coord.put(
                    state_key(namespace),
                    {
                        "last_dream_at": now.isoformat(),
                        "last_run_id": plan.run_id,
                        "watermark": self.c.store.watermark(namespace),
                    },
                )
        return DreamResult(
            namespace=namespace,
            status="applied",
            gate=decision,
            plan=plan,
            report=report,
            review_ids=[d.id for d in reviews],
            applied=applied,
        )

    def _catch_up(self, namespace: str) -> CatchUpReport | None:
        """The dream judges memories by meaning: those still waiting for their vectors get
        them first (here, or by waiting for whoever is catching up), for at most
        ``CATCH_UP_WAIT_S``; what is still pending after that is judged without."""
        if not pending(self.c.store, namespace):
            return None
        s = self.c.settings
        return drain(
            self.c.store,
            self.c.embedder,
            namespace,
            self.c.coord,
            timeout=CATCH_UP_WAIT_S,
            batch=s.catch_up_batch,
            chunk_chars=s.chunk_chars,
        )

    def resume(self, namespace: str) -> list[ApplyResult]:
        """Finish the runs a killed process left half applied, under the dream's lock."""
        with self.c.coord.locked(f"dream-lock:{namespace}", owner_id(), self.s.gate.lock_ttl_s):
            return self.applier.resume(namespace)

    def plan(
        self,
        namespace: str,
        now: datetime,
        stages: tuple[Stage, ...] = STAGES,
        *,
        skip_files: bool = False,
    ) -> tuple[Plan, dict[str, Any]]:
        """Every stage of ``stages`` over an in-memory workspace: the plan and the report."""
        c = self.c
        state = c.coord.get(state_key(namespace)) or {}
        parts = self.parts()
        run = Run(namespace=namespace, now=now, watermark=int(state.get("watermark", 0)))
        run.skip_files = skip_files
        ledgers = self._ledgers()
        usage_before = {name: ledger.snapshot() for name, ledger in ledgers.items()}
        timings: dict[str, float] = {}
        for name, stage in stages:
            started = time.perf_counter()
            stage(run, parts)
            timings[name] = round(time.perf_counter() - started, 4)
        plan = Plan(
            run_id=f"dr_{now.strftime('%Y%m%dT%H%M%S')}_{uuid.uuid4().hex[:6]}",
            namespace=namespace,
            created_at=now,
            changes=run.ws.changes(),
            findings=run.stages,
            communities=run.communities,
            discoveries=run.discoveries,
        )
        thresholds = policy.load(c.store, namespace).thresholds
        rejected = rejected_ops(c.store, namespace)
        auto, review = route(plan.changes, self.s.consolidate, self.s.review, thresholds, rejected)
        llm: dict[str, dict[str, float]] = {}
        for name, ledger in ledgers.items():
            for site, delta in _usage_delta(usage_before[name], ledger.snapshot()).items():
                llm[f"{name}:{site}" if name != "llm" else site] = delta
        report = {
            "namespace": namespace,
            "run_id": plan.run_id,
            "now": now.isoformat(),
            "counts": plan.counts(),
            "changes": len(plan.changes),
            "auto_approved": len(auto),
            "to_review": sum(len(g) for g in review),
            "stages": run.stages,
            "timings_s": timings,
            "llm": llm,
        }
        return plan, report

    def parts(self) -> Parts:
        c, onto = self.c, self.c.ontology
        return Parts(
            store=c.store,
            llm=c.llm,
            reasoning_llm=c.reasoning_llm,
            settings=c.settings,
            ontology=onto,
            lint=lambda ws: Linter(c, onto).check(ws, ["structure", "grounding"]),
            single_valued=lambda present: single_valued(c, onto, present),
        )

    def _ledgers(self) -> dict[str, Any]:
        """The usage ledgers to report: the model's, and the reasoning model's when it is
        another provider (escalations are counted there)."""
        out = {"llm": self.c.llm.usage}
        reasoning = self.c.reasoning_llm
        if reasoning is not None and reasoning.usage is not self.c.llm.usage:
            out["reasoning"] = reasoning.usage
        return out


def _usage_delta(
    before: dict[str, dict[str, float]], after: dict[str, dict[str, float]]
) -> dict[str, dict[str, float]]:
    out = {}
    for site, now in after.items():
        was = before.get(site, {})
        delta = {k: round(v - was.get(k, 0), 6) for k, v in now.items()}
        if any(delta.values()):
            out[site] = delta
    return out
