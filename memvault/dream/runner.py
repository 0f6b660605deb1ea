"""One dream of one namespace: gate → lock → orient → signal → reflect → consolidate →
maintenance → janitor → prune → plan, then (only when asked) apply.

Dry run is the default: the plan is returned and nothing is written. Gate state (last dream,
watermark) and the lock live in the coordination store.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from memvault.bootstrap import Container
from memvault.changes.apply import COMMUNITIES, Applier, ApplyResult
from memvault.changes.plan import Plan
from memvault.changes.routing import route
from memvault.changes.workspace import Workspace
from memvault.clock import ensure_utc
from memvault.coord.port import owner_id
from memvault.dream import consolidate as cons
from memvault.dream.gate import GateDecision, decide
from memvault.dream.orient import orient
from memvault.dream.prune import prune
from memvault.dream.reflect import reflect, snapshot
from memvault.dream.signal import signal
from memvault.graphs import GraphView, summarize
from memvault.lifecycle.hygiene import run_janitor
from memvault.lifecycle.stickiness import run_maintenance
from memvault.lint.runner import Linter, single_valued


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


def _state_key(namespace: str) -> str:
    return f"dream:{namespace}"


class Dreamer:
    def __init__(self, c: Container):
        self.c = c
        self.s = c.settings.dream
        self.applier = Applier(c.store, c.embedder, self.s.consolidate)

    def gate(self, namespace: str, now: datetime, *, force: bool = False) -> GateDecision:
        state = self.c.coord.get(_state_key(namespace)) or {}
        last = (
            ensure_utc(datetime.fromisoformat(state["last_dream_at"]))
            if state.get("last_dream_at")
            else None
        )
        return decide(
            last_dream_at=last,
            sessions_since=self.c.store.sessions_active_since(namespace, last),
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
    ) -> DreamResult:
        decision = self.gate(namespace, now, force=force)
        if not decision.open:
            return DreamResult(namespace=namespace, status="skipped", gate=decision)
        owner = owner_id()
        with self.c.coord.locked(f"dream-lock:{namespace}", owner, self.s.gate.lock_ttl_s):
            resumed = self.applier.resume(namespace) if apply else []
            plan, report = self.plan(namespace, now)
            report["gate"] = {"forced": decision.forced, "reasons": decision.reasons}
            report["resumed_runs"] = [r.run_id for r in resumed]
            if not apply:
                return DreamResult(
                    namespace=namespace, status="planned", gate=decision, plan=plan, report=report
                )
            _, reviews = self.applier.record(plan, report)
            applied = self.applier.run(namespace, plan.run_id, on_chunk=on_chunk)
            self.c.coord.put(
                _state_key(namespace),
                {
                    "last_dream_at": now.isoformat(),
                    "last_run_id": plan.run_id,
                    "watermark": self.c.store.watermark(namespace),
                },
            )
            self.c.coord.put(f"janitor:{namespace}", report["stages"]["janitor"])
        return DreamResult(
            namespace=namespace,
            status="applied",
            gate=decision,
            plan=plan,
            report=report,
            review_ids=[d.id for d in reviews],
            applied=applied,
        )

    def resume(self, namespace: str) -> list[ApplyResult]:
        """Finish the runs a killed process left half applied, under the dream's lock."""
        with self.c.coord.locked(f"dream-lock:{namespace}", owner_id(), self.s.gate.lock_ttl_s):
            return self.applier.resume(namespace)

    def plan(self, namespace: str, now: datetime) -> tuple[Plan, dict[str, Any]]:
        """Every stage over an in-memory workspace: the plan and the run report."""
        c, s = self.c, self.s
        state = c.coord.get(_state_key(namespace)) or {}
        stages: dict[str, Any] = {}
        timings: dict[str, float] = {}
        usage_before = c.llm.usage.snapshot()

        @contextmanager
        def stage(name: str) -> Iterator[None]:
            started = time.perf_counter()
            yield
            timings[name] = round(time.perf_counter() - started, 4)

        with stage("load"):
            ws = Workspace.load(c.store, namespace, now)
            changes = c.store.changed_since(namespace, int(state.get("watermark", 0)))
        with stage("orient"):
            stages["orient"] = orient(ws, changes)
            new_ids = stages["orient"].pop("new_episode_ids")
        with stage("lint"):
            onto = c.ontology
            linted = Linter(c, onto).check(ws, ["structure", "grounding"])
            stages["lint"] = {
                "counts": linted.counts(),
                "volatile_predicates": linted.volatile,
                "hint": "memvault lint --propose sends the fixes to review",
            }
        with stage("signal"):
            present = {f.predicate for f in ws.facts.values()}
            found, conflicts, duplicates = signal(
                ws,
                new_ids,
                single_valued=single_valued(c, onto, present),
                volatile=set(linted.volatile) | {p for p in present if onto.is_(p, "volatile")},
            )
            stages["signal"] = found
        with stage("communities"):
            view = GraphView.load(c.store, ws, c.settings.graph)
            edges = view.edges()
            partition = view.communities(edges)
            communities = view.describe(partition)
            summarize(view, communities, c.llm, top=c.settings.graph.summaries)
            co_mentions = view.co_mentions()
            repeated = sorted(
                p for p, n in co_mentions.items() if n >= c.settings.graph.bridge_min_mentions
            )
            previous = c.store.list_docs(namespace, COMMUNITIES, limit=1)
            seen = (
                {(a, b) for key in ("edges", "repeated") for a, b in previous[0].body.get(key, [])}
                if previous
                else None
            )
            discoveries = [
                view.discovery_json(d) | {"id": d.id}
                for d in view.discover(edges, partition, seen, co_mentions)
            ]
            found["discoveries"] = dict(Counter(d["kind"] for d in discoveries))
            found["graph"] = {
                "edges": len(edges),
                "communities": len(communities),
                "modularity": partition.modularity,
                "largest": [
                    {k: v for k, v in cm.items() if k != "members"} for cm in communities[:5]
                ],
            }
        with stage("reflect"):
            facts_by_entity: dict[str, int] = {}
            for f in ws.live_facts():
                for name in {f.subject, f.object}:
                    facts_by_entity[name] = facts_by_entity.get(name, 0) + 1
            stages["reflect"] = reflect(
                c.llm, snapshot(stages["orient"], found, facts_by_entity)
            ).model_dump()
        with stage("consolidate"):
            judge = cons.Judge(c.llm, c.reasoning_llm, s.consolidate)
            vectors = c.store.get_vectors(
                namespace, "episode", [e.id for e in ws.episodes.values() if e.expired_at is None]
            )
            stages["consolidate"] = {
                **cons.resolve_conflicts(ws, conflicts, judge),
                "duplicate_facts_merged": cons.merge_duplicate_facts(ws, duplicates),
                "episodes_merged": cons.merge_near_duplicate_episodes(
                    ws, vectors, new_ids, s.consolidate.duplicate_cosine
                ),
                "normalised": cons.normalise_contents(ws, c.settings.max_content_chars),
            }
        with stage("maintenance"):
            stages["maintenance"] = run_maintenance(ws, s.maintenance)
        with stage("janitor"):
            stages["janitor"] = run_janitor(ws, s.hygiene)
        with stage("prune"):
            stages["prune"] = prune(ws, s.consolidate)
        plan = Plan(
            run_id=f"dr_{now.strftime('%Y%m%dT%H%M%S')}_{uuid.uuid4().hex[:6]}",
            namespace=namespace,
            created_at=now,
            changes=ws.changes(),
            findings=stages,
            communities={
                "resolution": partition.resolution,
                "modularity": partition.modularity,
                "communities": communities,
                "edges": [[e.a, e.b] for e in edges],
                "repeated": [list(p) for p in repeated],  # bridge candidates seen by this run
            },
            discoveries=discoveries,
        )
        auto, review = route(plan.changes, s.consolidate)
        report = {
            "namespace": namespace,
            "run_id": plan.run_id,
            "now": now.isoformat(),
            "counts": plan.counts(),
            "changes": len(plan.changes),
            "auto_approved": len(auto),
            "to_review": sum(len(g) for g in review),
            "stages": stages,
            "timings_s": timings,
            "llm": _usage_delta(usage_before, c.llm.usage.snapshot()),
        }
        return plan, report


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
