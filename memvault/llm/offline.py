"""The offline provider: a plain fake of the LLM port, answering each prompt by a handler.

It knows no feature: the handlers (each feature's deterministic rules, the first step of
its escalation) are given to it by :func:`memvault.offline_rules.offline_handlers`, wired in
``bootstrap``. A prompt without a handler is an error, not a silent empty answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from memvault.errors import LLMError
from memvault.llm.port import Prompt, T, UsageLedger
from memvault.llm.workers import run_pure

Handler = Callable[[Mapping[str, Any]], BaseModel]


class OfflineProvider:
    name = "offline (rule-based)"

    def __init__(self, handlers: Mapping[str, Handler] | None = None, *, workers: int = 1):
        """``workers`` > 1: :meth:`complete_many` answers large batches in that many worker
        processes (memvault.llm.workers)."""
        self.handlers = dict(handlers or {})
        self.usage = UsageLedger()
        self.workers = workers

    def complete(self, prompt: Prompt[T], *, call_site: str) -> T:
        handler = self.handlers.get(prompt.name)
        if handler is None:
            self.usage.record(call_site, failed=True)
            raise LLMError(
                f"the offline provider has no rule for prompt {prompt.id}", call_site=call_site
            )
        answer = handler(prompt.inputs)
        self.usage.record(call_site)
        return _shaped(prompt, answer)

    def complete_many(self, prompts: Sequence[Prompt[T]], *, call_site: str) -> list[T | Exception]:
        """Each prompt's answer, or the exception its handler raised (one bad input never
        sinks the rest). A batch of at least ``MIN_BATCH`` prompts of one handler that worker
        processes can import runs in ``workers`` processes; otherwise, and when the workers
        fail (logged: the fallback), here, one by one."""
        names = {p.name for p in prompts}
        handler = self.handlers.get(names.pop()) if len(names) == 1 else None
        answers = (
            run_pure(handler, [p.inputs for p in prompts], self.workers)
            if handler is not None
            else None
        )
        if answers is not None:
            out: list[T | Exception] = []
            for prompt, answer in zip(prompts, answers, strict=True):
                if not isinstance(answer, Exception):
                    self.usage.record(call_site)
                out.append(answer if isinstance(answer, Exception) else _shaped(prompt, answer))
            return out
        done: list[T | Exception] = []
        for prompt in prompts:
            try:
                done.append(self.complete(prompt, call_site=call_site))
            except Exception as exc:
                done.append(exc)
        return done


def _shaped(prompt: Prompt[T], answer: BaseModel) -> T:
    if not isinstance(answer, prompt.response_model):
        return prompt.response_model.model_validate(answer.model_dump())
    return answer
