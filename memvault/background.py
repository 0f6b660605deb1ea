"""The background capabilities of the SDK facade: ``vault.background`` (dreams and their runs,
the tier and janitor stages on demand, the knowledge lint) and ``vault.review`` (the review
queue and its policy, the discovery inbox). Each method delegates to the service that owns
the capability."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from memvault.changes import queue
from memvault.changes.plan import Change
from memvault.container import Capability, Facade
from memvault.errors import InvalidInputError, MemvaultError

if TYPE_CHECKING:
    from memvault.dream.runner import Dreamer, DreamResult
    from memvault.lint.runner import LintReport


class Background(Capability[Facade]):
    def __init__(self, vault: Facade) -> None:
        super().__init__(vault)
        self._dreamer: Dreamer | None = None

    @property
    def dreamer(self) -> Dreamer:
        """The dream's runner, built on first use (its review queue, applier and stages)."""
        if self._dreamer is None:
            from memvault.dream.runner import Dreamer

            self._dreamer = Dreamer(self.c)
        return self._dreamer

    def dream(
        self,
        *,
        namespace: str | None = None,
        apply: bool = False,
        force: bool = False,
        now: datetime | None = None,
        skip_files: bool = False,
        on_chunk: Callable[[int], None] | None = None,
    ) -> DreamResult:
        """One dream of a namespace. Without ``apply`` it is a dry run: the plan, nothing
        written. The gate (time and sessions since the last dream) applies unless ``force``.
        ``skip_files``: leave the configured memory directories unread this time.
        ``on_chunk(done)``: after each committed chunk of the apply (progress)."""
        return self.dreamer.dream(
            self.ns(namespace),
            now=self.now(now),
            apply=apply,
            force=force,
            skip_files=skip_files,
            on_chunk=on_chunk,
        )

    def cross_namespace_duplicates(
        self, *, namespaces: Sequence[str] | None = None, threshold: float | None = None
    ) -> dict[str, Any]:
        """Memories that say the same thing in two namespaces (same words, or vectors at or
        above ``threshold``): reported for an operator, never merged (memvault.dream.crossns)."""
        from memvault.dream import crossns

        names = [self.ns(n) for n in namespaces] if namespaces else self.store.namespaces()
        return crossns.cross_duplicates(
            self.store, names, threshold=crossns.THRESHOLD if threshold is None else threshold
        )

    def dream_report(self, run_id: str, *, namespace: str | None = None) -> dict[str, Any]:
        return queue.report(self.dreamer.applier.run_doc(self.ns(namespace), run_id))

    def dream_runs(self, *, namespace: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        return queue.runs(self.store, self.ns(namespace), limit)

    def resume_dreams(self, *, namespace: str | None = None) -> list[str]:
        """Finish applying the runs a killed process left half applied; their run ids."""
        return [r.run_id for r in self.dreamer.resume(self.ns(namespace))]

    def undo_dream(self, run_id: str, *, namespace: str | None = None, force: bool = False) -> int:
        """Restore every record a dream run changed (and review items approved in it), also
        when a killed process left the run half applied; its pending review items are
        withdrawn. The gate stays closed (a nightly check does not redo what was just
        undone); recall's provisional signals return for what no remaining dream judged."""
        return self.dreamer.applier.undo(self.ns(namespace), run_id, force=force)

    # -- tiers ---------------------------------------------------------------------------------
    def tiers(
        self, *, namespace: str | None = None, apply: bool = False, now: datetime | None = None
    ) -> dict[str, Any]:
        """Episodes per type, tier and level (full / digest / headline), and what the tier
        stage moves now. Without ``apply`` nothing is written; with it the moves are a run of
        their own (``run_id``; :meth:`undo_dream` undoes it while the journal keeps the
        dropped text: ``dream.tiers.journal_retention_days``)."""
        ns = self.ns(namespace)
        result = self.dreamer.tiers(ns, now=self.now(now), apply=apply)
        plan = result.plan
        return {
            "namespace": ns,
            "status": result.status,
            "run_id": result.run_id if result.status == "applied" else None,
            "counts": self.store.tier_counts(ns),
            "next": result.report["stages"]["tiers"],
            "to_review": result.report["to_review"],
            "moves": [
                {
                    "id": c.target_id,
                    "op": c.op,
                    "why": c.reasons[0].why if c.reasons else "",
                }
                for c in (plan.changes if plan else [])
            ],
        }

    def janitor(
        self, *, namespace: str | None = None, apply: bool = False, now: datetime | None = None
    ) -> dict[str, Any]:
        """The hygiene janitor now, whatever ``dream.hygiene.schedule`` says, then prune and
        tiers (the episodes past the TTL go to the tiers): what it finds, and with ``apply``
        a run of its own (undoable) and the janitor's snapshot written."""
        ns = self.ns(namespace)
        result = self.dreamer.janitor(ns, now=self.now(now), apply=apply)
        stages = result.report["stages"]
        return {
            "namespace": ns,
            "status": result.status,
            "run_id": result.run_id if result.status == "applied" else None,
            "janitor": stages["janitor"],
            "prune": stages["prune"],
            "tiers": stages["tiers"],
            "changes": result.report["changes"],
            "to_review": result.report["to_review"],
            "snapshot": self.dreamer.janitor_snapshot(ns),
        }

    # -- knowledge lint -------------------------------------------------------------------------
    def lint(
        self,
        *,
        namespace: str | None = None,
        levels: Sequence[str] | None = None,
        ontology: Sequence[str | Path] = (),
        propose: bool = False,
        now: datetime | None = None,
    ) -> LintReport:
        """Check the namespace's graph, cheapest level first (structure, grounding, claims, llm).
        ``ontology``: extra files on top of the configured ones. ``propose``: send the fixes
        through the three-stage confirmation into the review queue (never applied here)."""
        from memvault.kg.ontology import load_ontology
        from memvault.lint.runner import Linter

        onto = (
            load_ontology([*self.settings.lint.ontology_paths, *ontology])
            if ontology
            else self.c.ontology
        )
        at = self.now(now)
        linter = Linter(self.c, onto)
        report = linter.run(self.ns(namespace), at, levels)
        if propose:
            linter.propose(report, at)
        return report


class Review(Capability[Facade]):
    """The review queue (what the dream would not apply alone) and the discovery inbox (what
    it found surprising); both are written by the dream, decided or read here."""

    def __init__(self, vault: Facade, background: Background) -> None:
        super().__init__(vault)
        self._background = background

    @property
    def dreamer(self) -> Dreamer:
        return self._background.dreamer

    def review_items(
        self,
        *,
        namespace: str | None = None,
        status: str | None = "pending",
        limit: int = 100,
        reason: str | None = None,
        oldest_first: bool = False,
    ) -> list[dict[str, Any]]:
        """Review items, newest first (or oldest first), optionally of one reason code
        (low_confidence, high_impact, large_batch, sensitive, proposed)."""
        return queue.review_items(
            self.store, self.ns(namespace), status, limit, reason=reason, oldest_first=oldest_first
        )

    def approve(
        self, review_id: str, *, namespace: str | None = None, now: datetime | None = None
    ) -> int:
        return self.dreamer.queue.approve(self.ns(namespace), review_id, self.now(now)).applied

    def reject(
        self,
        review_id: str,
        *,
        namespace: str | None = None,
        note: str = "",
        now: datetime | None = None,
    ) -> None:
        self.dreamer.queue.reject(self.ns(namespace), review_id, self.now(now), note)

    def decide_reviews(
        self,
        decision: str,
        *,
        namespace: str | None = None,
        reason: str | None = None,
        op: str | None = None,
        run_id: str | None = None,
        every: bool = False,
        dry_run: bool = True,
        note: str = "",
        now: datetime | None = None,
    ) -> dict[str, Any]:
        """Approve or reject, in one go, the pending items that match every filter given: a
        ``reason`` code, an ``op`` among their changes, the dream ``run_id`` that proposed
        them (``every``: all pending, when no filter is given). By default a dry run listing
        them. Each item is decided on its own: one that no longer applies (stale) is
        reported under ``failed`` and the others still go."""
        if decision not in ("approve", "reject"):
            raise InvalidInputError(
                f"unknown decision {decision!r}", field="decision", hint="approve or reject"
            )
        if not (reason or op or run_id or every):
            raise InvalidInputError(
                "no filter given",
                field="filter",
                hint="name a reason, an op or a run id, or ask for every pending item",
            )
        ns = self.ns(namespace)
        items = queue.review_items(self.store, ns, "pending", 100_000, reason=reason)
        matched = [
            i
            for i in items
            if (op is None or any(Change.model_validate(c).op == op for c in i["changes"]))
            and (run_id is None or i.get("run_id") == run_id)
        ]
        out: dict[str, Any] = {
            "decision": decision,
            "dry_run": dry_run,
            "matched": [
                {"id": i["id"], "reason": i.get("reason"), "run_id": i.get("run_id")}
                for i in matched
            ],
            "decided": [],
            "failed": [],
        }
        if dry_run:
            return out
        at = self.now(now)
        for item in matched:
            try:
                if decision == "approve":
                    self.dreamer.queue.approve(ns, item["id"], at)
                else:
                    self.dreamer.queue.reject(ns, item["id"], at, note)
                out["decided"].append(item["id"])
            except MemvaultError as exc:  # stale or decided meanwhile: the rest still go
                out["failed"].append({"id": item["id"], "error": str(exc)})
        return out

    def review_policy(self, *, namespace: str | None = None) -> dict[str, Any]:
        """Each op's auto-approve threshold, the decisions that moved it, and the moves."""
        return self.dreamer.queue.policy(self.ns(namespace))

    def reset_review_policy(
        self, *, namespace: str | None = None, now: datetime | None = None
    ) -> int:
        """Every op back to the default threshold (journaled); how many moved."""
        return self.dreamer.queue.reset_policy(self.ns(namespace), self.now(now))

    def requeue_overdue(
        self, *, namespace: str | None = None, now: datetime | None = None
    ) -> list[str]:
        """Pending review items past their due date get a new one (their history says so)."""
        return self.dreamer.queue.requeue_overdue(self.ns(namespace), self.now(now))

    # -- discovery inbox ------------------------------------------------------------------------
    def inbox(
        self, *, namespace: str | None = None, status: str | None = "unseen", limit: int = 100
    ) -> list[dict[str, Any]]:
        """What the dream found surprising (newest first); what a frontend polls. Never part
        of recall results."""
        return queue.inbox(self.store, self.ns(namespace), status, limit)

    def mark_inbox(
        self,
        ids: Iterable[str],
        status: Literal["seen", "dismissed"],
        *,
        namespace: str | None = None,
    ) -> int:
        return queue.mark_inbox(self.store, self.ns(namespace), ids, status)
