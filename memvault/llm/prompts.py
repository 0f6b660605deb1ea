"""Prompts as versioned functions, each paired with its pydantic response model.

Change a prompt's wording → bump its version; the version is recorded with usage and with
what the answer produced, so results stay attributable.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from memvault.llm.port import Prompt


class ExtractedEntity(BaseModel):
    name: str
    type: str = "unknown"


class ExtractedFact(BaseModel):
    subject: str
    predicate: str
    object: str
    statement: str
    confidence: float = Field(default=0.7, ge=0.0, le=1.0)
    object_is_entity: bool = False


class Extraction(BaseModel):
    entities: list[ExtractedEntity] = Field(default_factory=list)
    facts: list[ExtractedFact] = Field(default_factory=list)


_EXTRACT_SYSTEM = (
    "You extract a knowledge graph from one memory of an AI agent. Return JSON with "
    "'entities' (name, type: person|place|organization|thing|concept|event|unknown) and "
    "'facts' (subject, predicate in snake_case, object, statement: one self-contained "
    "sentence, confidence 0..1, object_is_entity). Use the speaker's name for 'I'. Only "
    "state what the text says; no guesses."
)


def extract_v1(text: str, *, speaker: str | None, subject_hint: str) -> Prompt[Extraction]:
    """Entities and facts of one memory. ``subject_hint`` names who "I" is."""
    user = json.dumps({"speaker": speaker or subject_hint, "text": text})
    return Prompt(
        name="extract",
        version=1,
        messages=[
            {"role": "system", "content": _EXTRACT_SYSTEM},
            {"role": "user", "content": user},
        ],
        response_model=Extraction,
        inputs={"text": text, "speaker": speaker, "subject_hint": subject_hint},
    )
