"""The dream's stages, in order: a list, not a method.

Each stage is a function ``(run, parts)``: it reads what earlier stages left on the ``Run``,
proposes changes through the workspace (``run.ws``), and writes its findings under its own
name in ``run.stages``. ``Parts`` are the narrow things stages may use (store reads, the LLM
ports, settings, the ontology, the lint's check), never the container. Adding a stage is a
function here (or in its own module) and one line in :data:`STAGES`; the runner times each
and reports them by name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memvault.changes.docs import COMMUNITIES
from memvault.changes.workspace import Workspace
from memvault.config import Settings
from memvault.dream import consolidate as cons
from memvault.dream.orient import orient
from memvault.dream.prune import prune
from memvault.dream.reflect import reflect, snapshot
from memvault.dream.review_prune import review_prune
from memvault.dream.signal import signal
from memvault.dream.updates import propose_updates
from memvault.graphs import GraphView, summarize
from memvault.interop.sync import sync_dirs
from memvault.kg import forgotten
from memvault.kg.model import Episode
from memvault.kg.ontology import Ontology
from memvault.kg.store import Store
from memvault.lifecycle.hygiene import run_janitor
from memvault.lifecycle.stickiness import run_maintenance
from memvault.lifecycle.tiers import move_tiers
from memvault.lint.runner import LintReport
from memvault.llm import LLM
from memvault.persona.stage import propose_persona
from memvault.recall.scoring import stretch_of


@dataclass
class Parts:
    store: Store
    llm: LLM
    reasoning_llm: LLM | None
    settings: Settings
    ontology: Ontology
    lint: Callable[[Workspace], LintReport]  # structure + grounding over a workspace
    single_valued: Callable[[set[str]], set[str]]  # of these predicates, the single-valued


@dataclass
class Run:
    """What one dream knows as its stages go: the workspace and each stage's findings."""

    namespace: str
    now: datetime
    watermark: int
    ws: Workspace = field(init=False)
    stages: dict[str, Any] = field(default_factory=dict)
    new_ids: list[str] = field(default_factory=list)
    new_fact_ids: set[str] = field(default_factory=set)  # facts written since the last dream
    volatile: set[str] = field(default_factory=set)
    conflicts: list[Any] = field(default_factory=list)
    duplicates: list[Any] = field(default_factory=list)
    communities: dict[str, Any] = field(default_factory=dict)  # the partition, for the plan
    discoveries: list[dict[str, Any]] = field(default_factory=list)
    vectors: dict[str, Any] = field(default_factory=dict)  # live episodes' (consolidate's read)
    skip_files: bool = False  # `memvault dream --skip-files`


def load(run: Run, p: Parts) -> None:
    run.ws = Workspace.load(p.store, run.namespace, run.now)


def files_stage(run: Run, p: Parts) -> None:
    dirs = p.settings.sync.memory_dirs.get(run.namespace, [])
    if run.skip_files or not dirs:
        run.stages["files"] = {"skipped": "--skip-files" if run.skip_files else "no directories"}
        return
    run.stages["files"] = sync_dirs(run.ws, dirs, forgotten.load(p.store, run.namespace))


def orient_stage(run: Run, p: Parts) -> None:
    _, ids, deleted = p.store.changed_ids_since(run.namespace, run.watermark)
    run.stages["orient"] = orient(run.ws, ids, deleted)
    run.new_ids = run.stages["orient"].pop("new_episode_ids")
    run.new_fact_ids = set(ids["fact"])


def lint_stage(run: Run, p: Parts) -> None:
    linted = p.lint(run.ws)
    present = {f.predicate for f in run.ws.facts.values()}
    run.volatile = set(linted.volatile) | {x for x in present if p.ontology.is_(x, "volatile")}
    run.stages["lint"] = {
        "counts": linted.counts(),
        "volatile_predicates": linted.volatile,
        "hint": "memvault lint --propose sends the fixes to review",
    }


def signal_stage(run: Run, p: Parts) -> None:
    present = {f.predicate for f in run.ws.facts.values()}
    found, run.conflicts, run.duplicates = signal(
        run.ws,
        run.new_ids,
        single_valued=p.single_valued(present),
        volatile=run.volatile,
        opposites=p.ontology.opposites,
    )
    run.stages["signal"] = found


def communities_stage(run: Run, p: Parts) -> None:
    g = p.settings.graph
    view = GraphView.load(p.store, run.ws, g)
    edges = view.edges()
    partition = view.communities(edges)
    communities = view.describe(partition)
    summarize(view, communities, p.llm, top=g.summaries)
    co_mentions = view.co_mentions()
    repeated = sorted(pair for pair, n in co_mentions.items() if n >= g.bridge_min_mentions)
    previous = p.store.list_docs(run.namespace, COMMUNITIES, limit=1)
    seen = (
        {(a, b) for key in ("edges", "repeated") for a, b in previous[0].body.get(key, [])}
        if previous
        else None
    )
    run.discoveries = [
        view.discovery_json(d) | {"id": d.id}
        for d in view.discover(edges, partition, seen, co_mentions)
    ]
    found = run.stages["signal"]
    found["discoveries"] = dict(Counter(d["kind"] for d in run.discoveries))
    found["graph"] = {
        "edges": len(edges),
        "communities": len(communities),
        "modularity": partition.modularity,
        "largest": [{k: v for k, v in cm.items() if k != "members"} for cm in communities[:5]],
    }
    run.communities = {
        "resolution": partition.resolution,
        "modularity": partition.modularity,
        "communities": communities,
        "edges": [[e.a, e.b] for e in edges],
        "repeated": [list(pair) for pair in repeated],  # bridge candidates seen by this run
    }


def reflect_stage(run: Run, p: Parts) -> None:
    facts_by_entity: dict[str, int] = {}
    for f in run.ws.live_facts():
        for name in {f.subject, f.object}:
            facts_by_entity[name] = facts_by_entity.get(name, 0) + 1
    stats = snapshot(run.stages["orient"], run.stages["signal"], facts_by_entity)
    run.stages["reflect"] = reflect(p.llm, stats).model_dump()


def consolidate_stage(run: Run, p: Parts) -> None:
    s = p.settings.dream.consolidate
    judge = cons.Judge(p.llm, p.reasoning_llm, s)
    live = [e.id for e in run.ws.episodes.values() if e.expired_at is None]
    vectors = run.vectors = p.store.get_vectors(run.namespace, "episode", live)
    refused: list[dict[str, Any]] = []
    stored = p.store.get_docs(run.namespace, cons.VERDICTS, [c.id for c in run.conflicts])
    judged = cons.still_judged(run.conflicts, stored)
    run.stages["consolidate"] = {
        **cons.resolve_conflicts(run.ws, run.conflicts, judge, judged),
        "duplicate_facts_merged": cons.merge_duplicate_facts(run.ws, run.duplicates),
        "episodes_merged": cons.merge_near_duplicate_episodes(
            run.ws, vectors, run.new_ids, s.duplicate_cosine, refused=refused
        ),
        # near-duplicates kept apart: they differ in a number, a name, a date or a negation
        "merges_refused": len(refused),
        "merges_refused_examples": refused[:20],
        "normalised": cons.normalise_contents(run.ws, p.settings.max_content_chars),
    }


def updates_stage(run: Run, p: Parts) -> None:
    s = p.settings.dream.updates
    run.stages["updates"] = propose_updates(run.ws, run.new_ids, p.llm, run.vectors, s)


def persona_stage(run: Run, p: Parts) -> None:
    run.stages["persona"] = propose_persona(run.ws, run.new_ids, p.llm, p.settings.persona)


def maintenance_stage(run: Run, p: Parts) -> None:
    s = p.settings

    def ignited(e: Episode) -> bool:
        return stretch_of(e, run.now, s.recall) >= s.dream.tiers.ignited_stretch

    run.stages["maintenance"] = run_maintenance(run.ws, s.dream.maintenance, ignited)


def janitor_stage(run: Run, p: Parts) -> None:
    """The janitor inside the dream: only on its ``onConsolidation`` schedule."""
    h = p.settings.dream.hygiene
    if h.schedule != "onConsolidation":
        run.stages["janitor"] = {"enabled": h.enabled, "skipped": f"schedule {h.schedule}"}
        return
    janitor_now(run, p)


def janitor_now(run: Run, p: Parts) -> None:
    s = p.settings
    run.stages["janitor"] = run_janitor(run.ws, s.dream.hygiene, s.recall)


def tiers_stage(run: Run, p: Parts) -> None:
    s = p.settings
    due_cold = set(run.stages.get("janitor", {}).get("cold", []))
    run.stages["tiers"] = move_tiers(run.ws, s.dream.tiers, s.recall, p.llm, due_cold)


def prune_review_stage(run: Run, p: Parts) -> None:
    """After the janitor: the model's review of busy subjects' facts (off by default)."""
    s = p.settings.dream.prune_review
    llm = p.reasoning_llm or p.llm
    run.stages["prune_review"] = review_prune(run.ws, run.new_fact_ids, llm, s, run.now)


def prune_stage(run: Run, p: Parts) -> None:
    run.stages["prune"] = prune(run.ws)


Stage = tuple[str, Callable[[Run, Parts], None]]

JANITOR_STAGES: tuple[Stage, ...] = (
    ("load", load),
    ("janitor", janitor_now),
    ("prune", prune_stage),
    ("tiers", tiers_stage),
)
TIER_STAGES: tuple[Stage, ...] = (("load", load), ("tiers", tiers_stage))

STAGES: tuple[Stage, ...] = (
    ("load", load),
    ("files", files_stage),
    ("orient", orient_stage),
    ("lint", lint_stage),
    ("signal", signal_stage),
    ("communities", communities_stage),
    ("reflect", reflect_stage),
    ("consolidate", consolidate_stage),
    ("updates", updates_stage),
    ("persona", persona_stage),
    ("maintenance", maintenance_stage),
    ("janitor", janitor_stage),
    ("prune_review", prune_review_stage),
    ("prune", prune_stage),
    ("tiers", tiers_stage),
)
