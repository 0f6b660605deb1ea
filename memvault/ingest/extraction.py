"""What a write extracts from each new memory: its entities and facts, by the configured model
one memory a call, or by the offline rules a whole batch at once (in worker processes for a
large batch: ``rule_workers``, memvault.llm.workers)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from memvault.errors import MemvaultError
from memvault.kg.model import Episode
from memvault.llm import LLM
from memvault.llm.offline import OfflineProvider
from memvault.llm.prompts import Extraction, extract_v1

# What a derivation (extraction, entities and facts, the persona rules) may raise on text it
# cannot read: the memory is still written, the derivation is skipped and counted. A bug of
# another kind (TypeError, KeyError...) still fails the write, loudly.
DERIVATION_ERRORS = (ValueError, MemvaultError)


def extract_all(
    llm: LLM,
    episodes: Sequence[Episode],
    own: Mapping[str, Any],
    skip: Callable[[str, Exception], None],
) -> list[Extraction]:
    """Each memory's extraction, in order; one that fails is an empty extraction and is
    counted through ``skip`` (any other error is raised, as it always was)."""
    types = {t.name: t.description for t in own.values()}
    prompts = [
        extract_v1(e.content, speaker=e.speaker, subject_hint="user", types=types) for e in episodes
    ]
    if isinstance(llm, OfflineProvider):
        answers: list[Extraction | Exception] = llm.complete_many(
            prompts, call_site="ingest.extract"
        )
    else:
        answers = []
        for prompt in prompts:
            try:
                answers.append(llm.complete(prompt, call_site="ingest.extract"))
            except DERIVATION_ERRORS as exc:
                answers.append(exc)
    out: list[Extraction] = []
    for answer in answers:
        if isinstance(answer, DERIVATION_ERRORS):
            skip("extraction", answer)
            out.append(Extraction())
        elif isinstance(answer, Exception):
            raise answer
        else:
            out.append(answer)
    return out
