"""The offline provider: a plain fake of the LLM port, answering each prompt by a handler.

It knows no feature: the handlers (each feature's deterministic rules, the first step of
its escalation) are given to it by :func:`memvault.offline_rules.offline_handlers`, wired in
``bootstrap``. A prompt without a handler is an error, not a silent empty answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from memvault.errors import LLMError
from memvault.llm.port import Prompt, T, UsageLedger

Handler = Callable[[Mapping[str, Any]], BaseModel]


class OfflineProvider:
    name = "offline (rule-based)"

    def __init__(self, handlers: Mapping[str, Handler] | None = None):
        self.handlers = dict(handlers or {})
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
