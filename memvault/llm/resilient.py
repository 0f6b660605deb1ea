"""A model outage is not a lost night: the configured model, with the offline rules behind it.

:class:`Resilient` asks the model first (its own retries and backoff included). When the
model still fails, the same prompt is answered by the offline provider's rule for it —
recorded in the usage ledger under ``<call site>:offline-fallback``, so the dream's run report
(``llm``) says which items the rules judged — and when there is no rule the model's error is
raised, for the caller to leave the item for the next run. After ``breaker_after`` failures in
a row the model is not asked again for ``cooldown_s`` seconds (a circuit breaker: an outage
costs one timeout, not one per item); the first success closes it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from memvault.errors import LLMError
from memvault.llm.port import LLM, Prompt, T

FALLBACK = "offline-fallback"


class Resilient:
    def __init__(
        self,
        primary: LLM,
        fallback: LLM,
        *,
        breaker_after: int = 3,
        cooldown_s: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.primary, self.fallback = primary, fallback
        self.name = primary.name
        self.usage = primary.usage
        self.breaker_after, self.cooldown_s, self._clock = breaker_after, cooldown_s, clock
        self._lock = threading.Lock()
        self._failures = 0
        self._open_until = 0.0

    @property
    def open(self) -> bool:
        """Whether the breaker is open (the model is not being asked)."""
        return self._clock() < self._open_until

    def complete(self, prompt: Prompt[T], *, call_site: str) -> T:
        if not self.open:
            try:
                answer = self.primary.complete(prompt, call_site=call_site)
            except LLMError as exc:
                with self._lock:
                    self._failures += 1
                    if self._failures >= self.breaker_after:
                        self._open_until = self._clock() + self.cooldown_s
                return self._by_rule(prompt, call_site, exc)
            with self._lock:
                self._failures, self._open_until = 0, 0.0
            return answer
        return self._by_rule(
            prompt,
            call_site,
            LLMError(f"{self.name} is paused after failures", call_site=call_site),
        )

    def _by_rule(self, prompt: Prompt[T], call_site: str, cause: LLMError) -> T:
        try:
            answer = self.fallback.complete(prompt, call_site=call_site)
        except LLMError:
            raise cause from None  # no rule for it: the caller leaves the item for later
        self.usage.record(f"{call_site}:{FALLBACK}")
        return answer
