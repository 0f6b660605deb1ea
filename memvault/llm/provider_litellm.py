"""Any model litellm can reach, behind the LLM port. litellm is imported on the first call (its
import costs seconds and, without ``LITELLM_LOCAL_MODEL_COST_MAP=True``, touches the
network). Answers must be JSON matching the prompt's response model; a malformed answer is
retried at once, a transient failure (a timeout, rate limiting, a server error) after an
exponential backoff with jitter, a refused key or request not at all; then LLMError. The
retrying is tenacity's (``Retrying``: when to stop, whether to try again, how long to wait),
the rules of what is worth retrying are ours. ``mock_response`` makes litellm answer without
a network call (``"litellm.InternalServerError"`` plays an outage): that is how tests run
it. What a caller does with an LLMError during an outage: :mod:`memvault.llm.resilient`.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from memvault.errors import LLMError
from memvault.llm.port import Prompt, T, UsageLedger

_import_lock = threading.Lock()


def _quiet() -> contextlib.AbstractContextManager[Any]:
    """litellm prints banners and debug hints with print(): they go to stderr, so stdout
    holds nothing but a command's own output (``--json`` stays parseable)."""
    return contextlib.redirect_stdout(sys.stderr)


def _litellm() -> Any:
    with _import_lock, _quiet():
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        try:
            import litellm
        except ImportError as exc:
            raise LLMError("litellm is not installed: pip install '.[llm]'") from exc
        litellm.telemetry = False
        litellm.suppress_debug_info = True
        return litellm


class LiteLLMProvider:
    def __init__(
        self,
        model: str,
        *,
        mock_response: str | None = None,
        max_retries: int = 2,
        timeout_s: float = 60.0,
        temperature: float = 0.0,
        backoff_s: float = 1.0,
        backoff_max_s: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.model = model
        self.name = f"litellm:{model}"
        self.mock_response = mock_response
        self.max_retries = max_retries
        self.timeout_s = timeout_s
        self.temperature = temperature
        self.backoff_s, self.backoff_max_s, self._sleep = backoff_s, backoff_max_s, sleep
        self.usage = UsageLedger()

    def _wait(self, state: RetryCallState) -> float:
        """Before the next attempt: none after a malformed answer, else an exponential
        backoff with jitter (half to all of ``backoff_s`` doubled per attempt, capped)."""
        failure = state.outcome.exception() if state.outcome else None
        if isinstance(failure, _Malformed):
            return 0.0
        delay = min(self.backoff_max_s, self.backoff_s * 2 ** (state.attempt_number - 1))
        return delay * (0.5 + random.random() / 2)

    def complete(self, prompt: Prompt[T], *, call_site: str) -> T:
        litellm = _litellm()
        retrying = Retrying(
            stop=stop_after_attempt(self.max_retries + 1),
            retry=retry_if_exception(lambda e: isinstance(e, _Malformed) or _transient(e)),
            wait=self._wait,
            sleep=self._sleep,
            reraise=True,
        )
        try:
            return retrying(self._attempt, litellm, prompt, call_site)
        except Exception as exc:  # litellm raises its own tree; translate at the boundary
            attempts = retrying.statistics.get("attempt_number", 1)
            raise LLMError(
                f"{self.model} failed on {prompt.id} after {attempts} attempt(s): "
                + (str(exc) if isinstance(exc, _Malformed) else f"{type(exc).__name__}: {exc}"),
                call_site=call_site,
            ) from exc

    def _attempt(self, litellm: Any, prompt: Prompt[T], call_site: str) -> T:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": prompt.messages,
            "temperature": self.temperature,
            "timeout": self.timeout_s,
            "response_format": {"type": "json_object"},
        }
        if self.mock_response is not None:
            kwargs["mock_response"] = self.mock_response
        try:
            with _quiet():
                response = litellm.completion(**kwargs)
        except Exception:
            self.usage.record(call_site, failed=True)
            raise
        usage = getattr(response, "usage", None)
        self.usage.record(
            call_site,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost_usd=_cost(litellm, response),
        )
        text = response.choices[0].message.content or ""
        try:
            return prompt.response_model.model_validate(json.loads(_strip_fences(text)))
        except (json.JSONDecodeError, ValidationError) as exc:
            name = prompt.response_model.__name__
            raise _Malformed(f"answer is not a valid {name}: {exc}") from exc


class _Malformed(Exception):
    """An answer that is not the JSON the prompt asked for: asked again at once."""


def _transient(exc: BaseException) -> bool:
    """Worth another attempt: a timeout, a lost connection, rate limiting or a server error
    (no status, 408, 409, 429, 5xx); not a refused key or a request the model cannot take."""
    status = getattr(exc, "status_code", None)
    return not isinstance(status, int) or status in (408, 409, 429) or status >= 500


def _cost(litellm: Any, response: Any) -> float:
    try:
        return float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # unknown models have no price: count tokens, cost 0
        return 0.0


def _strip_fences(text: str) -> str:
    t = text.strip()
    if t.startswith("```"):
        t = t.split("\n", 1)[1] if "\n" in t else ""
        t = t.rsplit("```", 1)[0]
    return t
