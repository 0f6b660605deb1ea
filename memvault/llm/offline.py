"""The offline provider: deterministic answers computed from a prompt's structured inputs.

It is the default when no model is configured, and what tests use. Each prompt name maps
to a rule-based handler; a prompt without one is an error, not a silent empty answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from memvault.errors import LLMError
from memvault.llm.port import Prompt, T, UsageLedger

Handler = Callable[[Mapping[str, Any]], BaseModel]


def _extract(inputs: Mapping[str, Any]) -> BaseModel:
    from memvault.ingest.rules import extract

    return extract(inputs["text"], speaker=inputs["speaker"], subject_hint=inputs["subject_hint"])


def _judge_conflicts(inputs: Mapping[str, Any]) -> BaseModel:
    from memvault.kg.temporal_conflict import rule_verdict
    from memvault.llm.prompts import Verdicts

    return Verdicts(verdicts=[rule_verdict(c) for c in inputs["conflicts"]])


def _reflect(inputs: Mapping[str, Any]) -> BaseModel:
    from memvault.dream.reflect import derive_reflection

    return derive_reflection(inputs["stats"])


def _lint_contradictions(inputs: Mapping[str, Any]) -> BaseModel:
    from memvault.lint.semantic import opposite_rule

    return opposite_rule(inputs["groups"], inputs["opposites"])


def _summarize_communities(inputs: Mapping[str, Any]) -> BaseModel:
    from memvault.llm.prompts import CommunitySummaries, CommunitySummary

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


DEFAULT_HANDLERS: dict[str, Handler] = {
    "extract": _extract,
    "judge_conflicts": _judge_conflicts,
    "reflect": _reflect,
    "lint_contradictions": _lint_contradictions,
    "summarize_communities": _summarize_communities,
}


class OfflineProvider:
    name = "offline (rule-based)"

    def __init__(self, handlers: Mapping[str, Handler] | None = None):
        self.handlers = {**DEFAULT_HANDLERS, **(handlers or {})}
        self.usage = UsageLedger()

    def complete(self, prompt: Prompt[T], *, call_site: str) -> T:
        handler = self.handlers.get(prompt.name)
        if handler is None:
            self.usage.record(call_site, failed=True)
            raise LLMError(
                f"the offline provider has no rule for prompt {prompt.id}", call_site=call_site
            )
        answer = handler(prompt.inputs)
        self.usage.record(call_site)
        if not isinstance(answer, prompt.response_model):
            answer = prompt.response_model.model_validate(answer.model_dump())
        return answer
