"""Each feature's deterministic rules as answers to its prompts: what the offline provider
says when no model is configured (the first step of every feature's escalation: rules →
configured model → reasoning model → review). Wired by ``bootstrap``; the LLM port itself
imports no feature."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from memvault.llm.offline import Handler
from memvault.llm.prompts import (
    CommunitySummaries,
    CommunitySummary,
    Digests,
    DigestText,
    FoldDigest,
    FoundAttitude,
    FoundSkillUse,
    PersonaFindings,
    Verdicts,
)


def _extract(inputs: Mapping[str, Any]) -> BaseModel:
    from memvault.ingest.rules import extract

    return extract(inputs["text"], speaker=inputs["speaker"], subject_hint=inputs["subject_hint"])


def _judge_conflicts(inputs: Mapping[str, Any]) -> BaseModel:
    from memvault.kg.temporal_conflict import rule_verdict

    return Verdicts(verdicts=[rule_verdict(c) for c in inputs["conflicts"]])


def _reflect(inputs: Mapping[str, Any]) -> BaseModel:
    from memvault.dream.reflect import derive_reflection

    return derive_reflection(inputs["stats"])


def _lint_contradictions(inputs: Mapping[str, Any]) -> BaseModel:
    from memvault.lint.semantic import opposite_rule

    return opposite_rule(inputs["groups"], inputs["opposites"])


def _summarize_communities(inputs: Mapping[str, Any]) -> BaseModel:
    out = []
    for c in inputs["communities"]:
        top = list(c["top"])
        facts = list(c["facts"])[:3]
        summary = f"Mostly about {', '.join(top[:5]) or 'nothing named'}"
        summary += f"; e.g. {'; '.join(facts)}." if facts else "."
        out.append(
            CommunitySummary(community=c["community"], title=" / ".join(top[:3]), summary=summary)
        )
    return CommunitySummaries(summaries=out)


def _fold(inputs: Mapping[str, Any]) -> BaseModel:
    from memvault.language.fold_lines import extractive_fold

    digest = extractive_fold(inputs["digest"], inputs["notes"], inputs["budget_tokens"])
    return FoldDigest(digest=digest)


def _digest(inputs: Mapping[str, Any]) -> BaseModel:
    from memvault.lifecycle.tiers import extractive_digest, rarity

    rare = rarity([i["text"] for i in inputs["items"]])
    return Digests(
        digests=[
            DigestText(id=i["id"], text=extractive_digest(i["text"], i["limit_chars"], rare))
            for i in inputs["items"]
        ]
    )


def _persona(inputs: Mapping[str, Any]) -> BaseModel:
    from memvault.persona import rules

    found = PersonaFindings()
    for e in inputs["episodes"]:
        for a in rules.attitudes(e["text"]):
            found.attitudes.append(
                FoundAttitude(
                    episode_id=e["id"],
                    category=a.category.value,
                    statement=a.statement,
                    context=a.context,
                    polarity=a.polarity,
                )
            )
        for u in rules.skills(e["text"]):
            found.skills.append(FoundSkillUse(episode_id=e["id"], name=u.name, kind=u.kind))
    return found


def _updates(inputs: Mapping[str, Any]) -> BaseModel:
    from memvault.dream.updates import rule_verdicts

    return rule_verdicts(inputs["pairs"])


def _intents(inputs: Mapping[str, Any]) -> BaseModel:
    from memvault.llm.prompts import IntentLabel, IntentLabels
    from memvault.profile.recall_log import intent

    return IntentLabels(
        labels=[IntentLabel(id=q["id"], intent=intent(q["query"])) for q in inputs["queries"]]
    )


def offline_handlers() -> dict[str, Handler]:
    return {
        "extract": _extract,
        "judge_conflicts": _judge_conflicts,
        "reflect": _reflect,
        "lint_contradictions": _lint_contradictions,
        "summarize_communities": _summarize_communities,
        "fold": _fold,
        "digest": _digest,
        "persona": _persona,
        "updates": _updates,
        "intents": _intents,
    }
