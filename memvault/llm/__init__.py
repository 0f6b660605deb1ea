"""The LLM port: one ``complete`` call, prompts as versioned functions, usage counted.

Providers: :class:`OfflineProvider` (deterministic, rule-based, the default) and
:class:`LiteLLMProvider` (any model litellm knows; litellm is imported on first call).
"""

from memvault.llm.offline import OfflineProvider
from memvault.llm.port import LLM, Prompt, UsageLedger
from memvault.llm.provider_litellm import LiteLLMProvider

__all__ = ["LLM", "LiteLLMProvider", "OfflineProvider", "Prompt", "UsageLedger"]
