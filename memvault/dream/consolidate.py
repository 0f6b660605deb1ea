"""Stage 4, consolidate: resolve temporal conflicts, merge duplicate facts and near-duplicate
episodes, normalise content. Every decision becomes a proposed change in the workspace.

Conflicts climb an escalation ladder: the timeline rules first (a verdict at or above
``rules_settle_at`` is final), then the configured model in batches (one call per
``judge_batch`` conflicts), then the reasoning model for verdicts below ``escalate_below``.
Whatever is still unsure carries its low confidence into the plan, and policy sends it to
review.

A sure COEXIST ("both hold") changes no record, so it is remembered on its own: a ``verdict``
document per conflict, keyed by the pair and holding a fingerprint of the evidence it judged
(both facts' objects, validity, sources and confirmations; never their text). The next dream
does not ask again until that evidence changes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memvault.changes.workspace import Workspace
from memvault.config import ConsolidateSettings
from memvault.embed.steady import COSINE_DIGITS
from memvault.ingest.normalize import normalize_content
from memvault.kg.model import Episode, Fact, episode_order, normalize_name
from memvault.kg.store import Doc
from memvault.kg.temporal_conflict import Conflict, Verdict, rule_verdict
from memvault.language.claims import distinguishing, said_apart
from memvault.llm.port import LLM
from memvault.llm.prompts import judge_conflicts_v1

VERDICTS = "verdict"  # a remembered COEXIST: one document per conflict (old id|new id)


def evidence(conflict: Conflict) -> str:
    """A fingerprint of what a verdict on ``conflict`` saw: a new source, a restatement, a
    changed object or validity on either side makes it differ (and the pair is judged
    again)."""

    def side(f: Fact) -> list[Any]:
        return [
            f.id,
            normalize_name(f.object),
            f.valid_at.isoformat(),
            f.invalid_at.isoformat() if f.invalid_at else None,
            sorted(f.source_episode_ids),
            f.reinforced_count,
        ]

    raw = json.dumps([side(conflict.old), side(conflict.new)], sort_keys=True)
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def still_judged(conflicts: Sequence[Conflict], stored: Sequence[Doc]) -> set[str]:
    """The ids of ``conflicts`` whose remembered verdict judged the evidence they hold now."""
    seen = {d.id: d.body.get("evidence") for d in stored}
    return {c.id for c in conflicts if seen.get(c.id) == evidence(c)}


def verdict_docs(remember: Sequence[Mapping[str, Any]], run_id: str) -> list[Doc]:
    """The documents an applied run keeps for its sure COEXIST verdicts."""
    return [Doc(VERDICTS, r["id"], {**r, "run_id": run_id}) for r in remember]


@dataclass
class Judge:
    llm: LLM
    reasoning: LLM | None
    settings: ConsolidateSettings

    def judge(self, conflicts: Sequence[Conflict]) -> tuple[list[Verdict], dict[str, int]]:
        """A verdict per conflict (in order) and how many each step of the ladder settled."""
        verdicts = {c.id: rule_verdict(c) for c in conflicts}
        asked = [c for c in conflicts if verdicts[c.id].confidence < self.settings.rules_settle_at]
        if asked:
            verdicts.update(self._ask(self.llm, asked, "dream.consolidate"))
        unsure = [c for c in asked if verdicts[c.id].confidence < self.settings.escalate_below]
        if unsure and self.reasoning is not None:
            verdicts.update(self._ask(self.reasoning, unsure, "dream.consolidate.escalate"))
        steps = {
            "rules": len(conflicts) - len(asked),
            "model": len(asked),
            "escalated": len(unsure) if self.reasoning else 0,
        }
        return [verdicts[c.id] for c in conflicts], steps

    def _ask(self, llm: LLM, conflicts: Sequence[Conflict], site: str) -> dict[str, Verdict]:
        out: dict[str, Verdict] = {}
        size = self.settings.judge_batch
        for start in range(0, len(conflicts), size):
            batch = conflicts[start : start + size]
            answer = llm.complete(judge_conflicts_v1(batch), call_site=site)
            given = {v.conflict_id: v for v in answer.verdicts}
            for c in batch:
                out[c.id] = given.get(c.id) or Verdict(
                    conflict_id=c.id,
                    decision="COEXIST",
                    confidence=0.0,
                    reason="the judge returned no verdict for this conflict",
                )
        return out


def resolve_conflicts(
    ws: Workspace,
    conflicts: Sequence[Conflict],
    judge: Judge,
    judged: set[str] | frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Judge ``conflicts`` and propose what the verdicts change; ``judged``: the ids whose
    remembered COEXIST still holds for their evidence (not asked again)."""
    asked = [c for c in conflicts if c.id not in judged]
    verdicts, steps = judge.judge(asked)
    tally: dict[str, int] = {"MERGE": 0, "SUPERSEDE": 0, "COEXIST": 0}
    refused = 0
    remember: list[dict[str, Any]] = []
    for conflict, v in zip(asked, verdicts, strict=True):
        old, new = ws.facts.get(conflict.old.id), ws.facts.get(conflict.new.id)
        if (
            v.decision == "MERGE"
            and old is not None
            and new is not None
            and (
                old.predicate != new.predicate  # opposite statements: one side's words lost
                or distinguishing(f"{old.object} {old.statement}", f"{new.object} {new.statement}")
            )
        ):  # a judge's MERGE of facts that differ in a number or a name would lose one
            v = v.model_copy(update={"decision": "COEXIST"})
            refused += 1
        tally[v.decision] += 1
        if old is None or new is None:
            continue
        if v.decision == "COEXIST" and v.confidence >= judge.settings.escalate_below:
            remember.append(
                {
                    "id": conflict.id,
                    "decision": v.decision,
                    "confidence": round(v.confidence, 3),
                    "evidence": evidence(conflict),
                    "judged_at": ws.now.isoformat(),
                }
            )
        if v.decision == "SUPERSEDE":
            ws.update(
                old,
                "consolidate.supersede",
                f"superseded by '{new.statement}': {v.reason}",
                certainty=v.confidence,
                impact="medium",
                group=f"conflict:{conflict.id}",
                invalid_at=new.valid_at,
            )
        elif v.decision == "MERGE":
            merge_facts(ws, [old, new], v.confidence, v.reason, group=f"conflict:{conflict.id}")
    return {
        "verdicts": tally,
        "settled_by": steps,
        "escalated": steps["escalated"],
        "fact_merges_refused": refused,
        "remembered": len(conflicts) - len(asked),  # COEXIST verdicts whose evidence is unchanged
        "remember": remember,  # sure COEXIST verdicts, kept when the run is applied
    }


def merge_facts(
    ws: Workspace, facts: Sequence[Fact], confidence: float, why: str, *, group: str
) -> None:
    """Keep the oldest; it takes every source, count and the best confidence. The others
    are retired (``expired_at``), not deleted."""
    keep, *rest = facts
    ws.update(
        keep,
        "consolidate.merge",
        f"absorbs {len(rest)} duplicate(s): {why}",
        certainty=confidence,
        impact="medium",
        group=group,
        source_episode_ids=_union(f.source_episode_ids for f in facts),
        source_session_ids=_union(f.source_session_ids for f in facts),
        reinforced_count=sum(f.reinforced_count for f in facts),
        access_count=sum(f.access_count for f in facts),
        confidence=max(f.confidence for f in facts),
        last_reinforced_at=max(
            (f.last_reinforced_at for f in facts if f.last_reinforced_at), default=None
        ),
    )
    for f in rest:
        ws.update(
            f,
            "consolidate.merge",
            f"merged into '{keep.statement}' ({keep.id})",
            certainty=confidence,
            impact="medium",
            group=group,
            expired_at=ws.now,
        )


def _union(lists: Any) -> list[str]:
    seen: dict[str, None] = {}
    for items in lists:
        seen.update(dict.fromkeys(items))
    return list(seen)


def merge_duplicate_facts(ws: Workspace, groups: Sequence[Sequence[str]]) -> int:
    merged = 0
    for ids in groups:
        facts = [ws.facts[i] for i in ids if i in ws.facts and ws.facts[i].expired_at is None]
        if len(facts) > 1:
            merge_facts(
                ws,
                facts,
                0.95,
                "the same subject, predicate and object",
                group=f"dup:{facts[0].id}",
            )
            merged += len(facts) - 1
    return merged


def merge_near_duplicate_episodes(
    ws: Workspace,
    vectors: dict[str, np.ndarray],
    new_ids: Sequence[str],
    threshold: float,
    *,
    chunk: int = 256,
    refused: list[dict[str, Any]] | None = None,
) -> int:
    """Each new episode against every live episode of the same speaker: at cosine ≥
    ``threshold`` (to :data:`~memvault.embed.steady.COSINE_DIGITS` decimals) the
    higher-importance one (the first said on a tie: by time, then place in its session)
    absorbs the other's access and reinforcement counts; the other is retired. Never when
    they differ in what tells claims apart (a number, an id, a date, a name, a number word,
    a negation: :func:`memvault.language.claims.distinguishing`) or when either has a word
    the other lacks (:func:`memvault.language.claims.said_apart`: a longer one says more,
    whatever its cosine): those are two memories, and the pair is counted in ``refused``
    with what differs."""
    # one order on every run (the random ids and the order records were read in decide
    # nothing): which pair merges first can decide a group whose likeness is not transitive
    live = sorted(
        (e for e in ws.episodes.values() if e.expired_at is None and e.id in vectors),
        key=episode_order,
    )
    if len(live) < 2:
        return 0
    ids = [e.id for e in live]
    row = {i: n for n, i in enumerate(ids)}
    matrix = np.stack([vectors[i] for i in ids]).astype(np.float32)
    speakers = [normalize_name(e.speaker or "") for e in live]
    fresh = sorted((i for i in set(new_ids) if i in row), key=row.__getitem__)
    merged = 0
    told: set[frozenset[str]] = set()
    for start in range(0, len(fresh), chunk):
        part = fresh[start : start + chunk]
        sims = matrix[[row[i] for i in part]] @ matrix.T
        for n, episode_id in enumerate(part):
            sims[n, row[episode_id]] = -1.0
            for other in np.flatnonzero(np.round(sims[n], COSINE_DIGITS) >= threshold):
                a, b = ws.episodes[episode_id], ws.episodes[ids[other]]
                if (
                    a.expired_at is None
                    and b.expired_at is None
                    and speakers[row[a.id]] == speakers[other]
                    and a.type == b.type
                ):
                    differ = distinguishing(a.content, b.content)
                    if differ := differ or said_apart(a.content, b.content):
                        pair = frozenset((a.id, b.id))
                        if refused is not None and pair not in told:  # two new ones: once
                            told.add(pair)
                            refused.append({"ids": [a.id, b.id], "differ": sorted(differ)})
                        continue
                    _merge_episodes(ws, a, b, float(sims[n, other]))
                    merged += 1
    return merged


def _merge_episodes(ws: Workspace, a: Episode, b: Episode, cosine: float) -> None:
    # the more important, else the first said (by time, then place in its session: two
    # turns of one session share its time, and the random id would pick by the build)
    keep, drop = sorted((a, b), key=lambda e: (-e.importance, episode_order(e)))
    confidence = min(0.99, 0.5 + cosine / 2)
    group = f"near-dup:{keep.id}:{drop.id}"
    why = f"near-duplicate (cosine {cosine:.3f})"
    ws.update(
        keep,
        "consolidate.merge_episode",
        f"{why}: absorbs {drop.id}",
        certainty=confidence,
        impact="medium",
        group=group,
        access_count=keep.access_count + drop.access_count,
        reinforced_count=keep.reinforced_count + drop.reinforced_count,
        # the survivor speaks for what it absorbed and for what that had absorbed
        metadata={
            **keep.metadata,
            "merged_from": _union(
                [
                    keep.metadata.get("merged_from", []),
                    [drop.id],
                    drop.metadata.get("merged_from", []),
                ]
            ),
        },
    )
    ws.update(
        drop,
        "consolidate.merge_episode",
        f"{why}: merged into {keep.id}",
        certainty=confidence,
        impact="medium",
        group=group,
        expired_at=ws.now,
        metadata={**drop.metadata, "merged_into": keep.id},
    )


def normalise_contents(ws: Workspace, limit: int) -> int:
    """Re-normalise stored text (records imported from older dumps or other tools)."""
    changed = 0
    for e in list(ws.episodes.values()):
        text, _ = normalize_content(e.content, limit=limit)
        if text != e.content:
            ws.update(e, "consolidate.normalise", "content normalised", content=text)
            changed += 1
    return changed
