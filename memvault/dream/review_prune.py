"""Stage 5b, the model's prune review (seed 002: consolidate → janitor → prune): after the
janitor, a configured model reads each busy subject's surviving facts and points out those
another contradicts or merely repeats. Optional (``dream.prune_review.enabled``) and gated:
only subjects with at least ``min_facts`` live facts, some written since the last dream, at most
``max_subjects`` per run.

What it proposes goes through the changes layer like every other change: a dry run shows
it, routing sends it to review (its confidence is capped below the auto-approve threshold
unless an operator lowers that op's threshold), undo restores it. Nothing is erased: a
contradicted fact gets an end of validity (``invalid_at``, the newer fact's start: as-of
reads still answer it), a repeated one is retired (``expired_at``) beside the fact it
repeats. The offline rules have no such judgement: without a model the pass says so and
proposes nothing.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from memvault.changes.workspace import Workspace
from memvault.config.dream import PruneReviewSettings
from memvault.errors import LLMError
from memvault.kg.model import Fact, fact_order
from memvault.llm import LLM
from memvault.llm.prune_prompt import PruneVerdicts, prune_v1

CONTRADICTED = "prune.contradicted"
REPEATED = "prune.repeated"


def review_prune(
    ws: Workspace, new_fact_ids: set[str], llm: LLM, s: PruneReviewSettings, now: datetime
) -> dict[str, Any]:
    if not s.enabled:
        return {"enabled": False}
    live: dict[str, list[Fact]] = defaultdict(list)
    for f in ws.facts.values():
        if f.expired_at is None and f.is_valid_at(now):
            live[f.subject_id].append(f)
    busy = [
        (sid, facts)
        for sid, facts in live.items()
        if len(facts) >= s.min_facts and any(f.id in new_fact_ids for f in facts)
    ]
    busy.sort(key=lambda kv: (-len(kv[1]), kv[0]))
    out: dict[str, Any] = {
        "enabled": True,
        "subjects": 0,
        "contradicted": 0,
        "repeated": 0,
        "ignored": 0,
        "skipped": None,
    }
    for _, facts in busy[: s.max_subjects]:
        facts = sorted(facts, key=fact_order)[: s.max_facts]
        try:
            verdicts: PruneVerdicts = llm.complete(
                prune_v1(facts[0].subject, [_line(f) for f in facts]), call_site="dream.prune"
            )
        except LLMError as exc:  # offline: no rule for this judgement; a model outage
            out["skipped"] = f"no verdicts: {exc}"
            break
        out["subjects"] += 1
        for v in verdicts.verdicts:
            if not (1 <= v.fact <= len(facts) and 1 <= v.because_of <= len(facts)):
                out["ignored"] += 1  # a number that names no fact of the list
                continue
            fact, keeper = facts[v.fact - 1], facts[v.because_of - 1]
            if fact.id == keeper.id or ws.facts[fact.id].expired_at is not None:
                out["ignored"] += 1
                continue
            if v.kind == "contradicted" and keeper.valid_at > fact.valid_at:
                op, change = CONTRADICTED, {"invalid_at": keeper.valid_at}  # it ended then
            elif v.kind == "repeated":
                op, change = REPEATED, {"expired_at": ws.now}  # retired beside its twin
            else:  # a contradiction by an older fact: the newer one is not retired for it
                out["ignored"] += 1
                continue
            ws.update(
                ws.facts[fact.id],
                op,
                f"the model: {v.reason.strip()[:200]} (keeps {keeper.statement!r})",
                certainty=min(v.confidence, s.max_confidence),
                impact="medium",
                group=f"prune:{fact.id}",
                **change,
            )
            out[v.kind] += 1
    return out


def _line(f: Fact) -> str:
    return f"{f.valid_at.date().isoformat()} {f.statement}"
