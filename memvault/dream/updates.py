"""The dream's ``updates`` stage: episode-level update links.

For the speakers of the episodes written since the last dream, candidate pairs (older →
newer statement of the same speaker) come from the rules' chains (memvault.kg.updates) and,
when a model is configured, from the embedder (older statements of the speaker close to a
new one). Every pair is judged through the LLM port (offline: the same rules), and each
``update`` verdict is proposed as a change to the older episode (op ``episode.replaced``:
a :class:`~memvault.kg.model.Replacement` added to its ``replaced_by``), with the facts it
makes outdated (memvault.dream.fact_updates), routed, journaled and undone like any other
change. Recall reads the links (memvault.recall.currency).
Nothing is deleted or hidden: the old statement stays answerable for history questions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

import numpy as np

from memvault.changes.docs import RUN, judged_until
from memvault.changes.workspace import Workspace
from memvault.config import UpdateSettings
from memvault.dream.fact_updates import supersede_stated_facts
from memvault.errors import LLMError
from memvault.kg.model import Episode, Replacement
from memvault.kg.store import DocumentStore
from memvault.kg.updates import Said, chains, judge
from memvault.language.person import is_assistant
from memvault.llm.offline import OfflineProvider
from memvault.llm.port import LLM
from memvault.llm.prompts import UpdateVerdict, UpdateVerdicts, updates_v1


def _said(e: Episode) -> Said:
    return Said(id=e.id, speaker=e.speaker or "", at=e.occurred_at, text=e.content)


def _side(e: Episode) -> dict[str, str]:
    return {"speaker": e.speaker or "", "at": e.occurred_at.isoformat(), "text": e.content}


def _nearby(
    by_speaker: Mapping[str, list[Episode]],
    new: Sequence[Episode],
    vectors: Mapping[str, np.ndarray],
    s: UpdateSettings,
) -> list[tuple[str, str]]:
    """(old id, new id): the older statements of the speaker nearest in meaning to each new
    one, a few (``candidates_per_episode``) above a low floor (``candidate_cosine``): two
    statements of one change often share few words ("Long day at Copperleaf again." / "Badge
    photo done, first standup at Nimbus Freight tomorrow.": cosine 0.2-0.4), and the model
    can only link what it is shown (bench/update_nomination.py). A repeat of the same words
    is no update (the duplicate merge has it) and is not paired."""
    pairs: list[tuple[str, str]] = []
    for n in new:
        if n.id not in vectors:
            continue
        words = " ".join(n.content.lower().split())
        older = [
            e
            for e in by_speaker[(n.speaker or "").lower()]
            if e.occurred_at < n.occurred_at
            and e.id in vectors
            and " ".join(e.content.lower().split()) != words
        ]
        if not older:
            continue
        sims = np.stack([vectors[e.id] for e in older]) @ vectors[n.id]
        for i in np.argsort(-sims)[: s.candidates_per_episode]:
            if sims[i] >= s.candidate_cosine:
                pairs.append((older[i].id, n.id))
    return pairs


def last_judged(store: DocumentStore, namespace: str) -> datetime | None:
    """When the newest applied dream that ran this stage looked from (run documents)."""
    return judged_until(store.list_docs(namespace, RUN, status="applied", limit=1_000))


def rule_verdicts(pairs: Sequence[Mapping[str, Any]]) -> UpdateVerdicts:
    """The rules' verdicts on ``updates_v1`` pairs: the offline provider's answer, and the
    fallback when a model's answer is unusable."""

    def said(side: Mapping[str, Any]) -> Said:
        at = datetime.fromisoformat(side["at"])
        return Said(id="", speaker=side["speaker"], at=at, text=side["text"])

    out = UpdateVerdicts()
    for p in pairs:
        link = judge(said(p["old"]), said(p["new"]))
        verdict = UpdateVerdict(pair_id=p["pair_id"], verdict="unrelated")
        if link is not None:
            verdict = UpdateVerdict(
                pair_id=p["pair_id"],
                verdict="update",
                attribute=link.attribute,
                before=link.before,
                after=link.after,
            )
        out.verdicts.append(verdict)
    return out


def propose_updates(
    ws: Workspace,
    new_ids: Sequence[str],
    llm: LLM,
    vectors: Mapping[str, np.ndarray],
    s: UpdateSettings,
) -> dict[str, Any]:
    if not s.enabled:
        return {"enabled": False}
    live = {i: e for i, e in ws.episodes.items() if e.expired_at is None and e.speaker}
    new = [live[i] for i in new_ids if i in live and not is_assistant(live[i].speaker)]
    speakers = {(e.speaker or "").lower() for e in new}
    by_speaker: dict[str, list[Episode]] = {sp: [] for sp in speakers}
    for e in live.values():
        if (e.speaker or "").lower() in speakers:
            by_speaker[(e.speaker or "").lower()].append(e)
    fresh = {e.id for e in new}
    pairs = [
        (link.old.id, link.new.id)
        for sp in speakers
        for link in chains(_said(e) for e in by_speaker[sp])
        if link.old.id in fresh or link.new.id in fresh
    ]
    model = not isinstance(llm, OfflineProvider)
    if model and s.candidates_per_episode:
        pairs += _nearby(by_speaker, new, vectors, s)
    pairs = list(dict.fromkeys(pairs))
    counts: Counter[str] = Counter()
    calls = 0
    for start in range(0, len(pairs), s.batch):
        chunk = {f"p{start + i}": pair for i, pair in enumerate(pairs[start : start + s.batch])}
        prompt = updates_v1(
            [
                {"pair_id": pid, "old": _side(live[o]), "new": _side(live[n])}
                for pid, (o, n) in chunk.items()
            ]
        )
        calls += 1
        by: Literal["rules", "model"] = "model" if model else "rules"
        try:
            found = llm.complete(prompt, call_site="dream.updates")
        except LLMError:  # one bad answer never sinks the dream: the rules judge this batch
            counts["model_failures"] += 1
            found, by = rule_verdicts(prompt.inputs["pairs"]), "rules"
        for v in found.verdicts:
            pair = chunk.get(v.pair_id)
            if pair is None or v.verdict not in {"update", "coexist", "unrelated"}:
                counts["invalid"] += 1
                continue
            counts[v.verdict] += 1
            if v.verdict != "update" or not v.attribute.strip():
                continue
            old, newer = ws.episodes[pair[0]], live[pair[1]]
            attribute = " ".join(v.attribute.lower().split())[:40]
            if any(r.attribute == attribute for r in old.replaced_by):
                counts["already_linked"] += 1
                continue
            link = Replacement(
                episode_id=newer.id,
                at=newer.occurred_at,
                attribute=attribute,
                before=v.before[:120],
                after=v.after[:120],
                by=by,
            )
            why = (
                f"{newer.speaker}'s {attribute} changed from '{link.before}' to "
                f"'{link.after}' on {newer.occurred_at.date().isoformat()} ({newer.id})"
            )
            ws.update(
                old,
                "episode.replaced",
                why,
                certainty=s.certainty,
                group=f"updates:{old.id}",
                replaced_by=[*old.replaced_by, link],
            )
            counts["links_proposed"] += 1
            counts += supersede_stated_facts(
                ws, newer, link, certainty=s.certainty, group=f"updates:{old.id}"
            )
    # links an earlier dream made (a vault written before facts followed them): the facts
    # their older statement still holds as current end too; a no-op once they have
    sourced = {i for f in ws.live_facts() for i in f.source_episode_ids}
    for said in [e for e in live.values() if e.replaced_by and e.id in sourced]:
        for r in said.replaced_by:
            if r.by != "user" and (later := live.get(r.episode_id)) is not None:
                counts += supersede_stated_facts(
                    ws, later, r, certainty=s.certainty, group=f"updates:{said.id}"
                )
    return {
        "statements_read": len(new),
        "pairs_judged": len(pairs),
        "model_calls": calls,
        **dict(sorted(counts.items())),
    }
