"""The LLM port and the usage ledger every provider writes to."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class Prompt(Generic[T]):
    """A rendered prompt: what to send, what shape the answer must have, and the structured
    inputs it was rendered from (the offline provider answers from those, not the text)."""

    name: str
    version: int
    messages: list[dict[str, str]]
    response_model: type[T]
    inputs: Mapping[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.name}@v{self.version}"


@dataclass
class Usage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    failures: int = 0


class UsageLedger:
    """Calls, tokens and cost per call site (e.g. ``ingest.extract``, ``dream.consolidate``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.by_site: dict[str, Usage] = {}

    def record(
        self,
        call_site: str,
        *,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        cost_usd: float = 0.0,
        failed: bool = False,
    ) -> None:
        with self._lock:
            u = self.by_site.setdefault(call_site, Usage())
            u.calls += 1
            u.prompt_tokens += prompt_tokens
            u.completion_tokens += completion_tokens
            u.cost_usd += cost_usd
            u.failures += int(failed)

    def snapshot(self) -> dict[str, dict[str, float]]:
        with self._lock:
            return {site: dict(vars(u)) for site, u in sorted(self.by_site.items())}

    def total(self) -> Usage:
        with self._lock:
            t = Usage()
            for u in self.by_site.values():
                t.calls += u.calls
                t.prompt_tokens += u.prompt_tokens
                t.completion_tokens += u.completion_tokens
                t.cost_usd += u.cost_usd
                t.failures += u.failures
            return t


class LLM(Protocol):
    name: str
    usage: UsageLedger

    def complete(self, prompt: Prompt[T], *, call_site: str) -> T:
        """Answer ``prompt`` with an instance of its response model, or raise LLMError."""
        ...
