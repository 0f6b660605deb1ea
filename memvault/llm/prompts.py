"""Prompts as versioned functions, each paired with its pydantic response model.

Change a prompt's wording → bump its version; the version is recorded with usage and with
what the answer produced, so results stay attributable.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from memvault.kg.model import normalize_predicate
from memvault.kg.temporal_conflict import Conflict, Verdict
from memvault.llm.port import Prompt


class ExtractedEntity(BaseModel):
    name: str
    type: str = "unknown"
    # the offline rules' mark (capitalised only because it opens a sentence: kept if the
    # namespace knows the name); not in the schema a model is asked to fill
    tentative: SkipJsonSchema[bool] = False


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

    @field_validator("facts")
    @classmethod
    def _usable(cls, facts: list[ExtractedFact]) -> list[ExtractedFact]:
        """A model's unusable triples (empty parts, a predicate of punctuation) are dropped,
        not allowed to fail the whole write."""
        return [
            f
            for f in facts
            if f.subject.strip()
            and f.object.strip()
            and f.statement.strip()
            and normalize_predicate(f.predicate)
            and len(f.predicate) <= 128
        ]


_EXTRACT_SYSTEM = (
    "You extract a knowledge graph from one memory of an AI agent. Return JSON with "
    "'entities' (name, type: person|place|organization|thing|concept|event|unknown) and "
    "'facts' (subject, predicate in snake_case, object, statement: one self-contained "
    "sentence, confidence 0..1, object_is_entity). Use the speaker's name for 'I'. Only "
    "state what the text says; no guesses."
)


def extract_v1(
    text: str,
    *,
    speaker: str | None,
    subject_hint: str,
    types: Mapping[str, str] | None = None,
) -> Prompt[Extraction]:
    """Entities and facts of one memory. ``subject_hint`` names who "I" is; ``types``: the
    namespace's own entity types (name → description), offered beside the built-in ones
    (without any, the prompt is what it always was)."""
    user = json.dumps({"speaker": speaker or subject_hint, "text": text})
    system = _EXTRACT_SYSTEM
    if types:
        own = "; ".join(f"{name}: {description}" for name, description in sorted(types.items()))
        system += (
            f" This memory's owner also uses these entity types, more specific than the "
            f"built-in ones: {own}. Use one where it fits."
        )
    return Prompt(
        name="extract",
        version=1,
        messages=[
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ],
        response_model=Extraction,
        inputs={"text": text, "speaker": speaker, "subject_hint": subject_hint},
    )


class Verdicts(BaseModel):
    verdicts: list[Verdict] = Field(default_factory=list)


_JUDGE_SYSTEM = (
    "You resolve contradictions in an AI agent's long-term memory. Each conflict gives an "
    "old and a new fact about the same subject and predicate, with when each became true "
    "(valid_at), until when (invalid_at) and the sessions it came from. For each conflict "
    "answer one of: MERGE (the same fact said twice: keep one with both sources), SUPERSEDE "
    "(the new one replaces the old from its valid_at), COEXIST (both are true). Return JSON "
    "{'verdicts': [{'conflict_id', 'decision', 'confidence' 0..1, 'reason'}]}, one per "
    "conflict. Be honest about uncertainty: a low confidence sends it to a human."
)


def judge_conflicts_v1(conflicts: Sequence[Conflict]) -> Prompt[Verdicts]:
    """One call judges a batch of conflicts."""
    user = json.dumps({"conflicts": [c.describe() for c in conflicts]}, ensure_ascii=False)
    return Prompt(
        name="judge_conflicts",
        version=1,
        messages=[
            {"role": "system", "content": _JUDGE_SYSTEM},
            {"role": "user", "content": user},
        ],
        response_model=Verdicts,
        inputs={"conflicts": list(conflicts)},
    )


class Reflection(BaseModel):
    insights: list[str] = Field(default_factory=list)
    gaps: list[str] = Field(default_factory=list)


_REFLECT_SYSTEM = (
    "You look over statistics of an AI agent's memory of one user and say what stands out. "
    "Return JSON {'insights': [...], 'gaps': [...]}: insights are short observations about "
    "what the memory holds and how it changed; gaps are things the agent seems to care about "
    "but knows little of. At most five of each; only what the statistics support."
)


def reflect_v1(stats: Mapping[str, Any]) -> Prompt[Reflection]:
    return Prompt(
        name="reflect",
        version=1,
        messages=[
            {"role": "system", "content": _REFLECT_SYSTEM},
            {"role": "user", "content": json.dumps(stats, ensure_ascii=False, default=str)},
        ],
        response_model=Reflection,
        inputs={"stats": stats},
    )


class Contradiction(BaseModel):
    fact_ids: list[str] = Field(min_length=2, description="The facts that cannot all hold.")
    wrong_fact_id: str | None = Field(
        default=None, description="The fact most likely wrong; None: cannot tell."
    )
    reason: str
    confidence: float = Field(ge=0, le=1)


class Contradictions(BaseModel):
    contradictions: list[Contradiction] = Field(default_factory=list)


_LINT_SYSTEM = (
    "You check an AI agent's long-term memory for semantic contradictions that simple rules "
    "miss: facts about one subject that cannot all be true at the same time (e.g. 'is "
    "vegetarian' and 'eats steak every day', 'is an only child' and 'has a sister'). Each "
    "group lists live facts of one subject with an id, the statement and since when it "
    "holds. Return JSON {'contradictions': [{'fact_ids': [...], 'wrong_fact_id': id or "
    "null, 'reason', 'confidence' 0..1}]}. Facts that merely differ are not contradictions; "
    "a change over time is not one either. Report nothing you are unsure of."
)


def lint_contradictions_v1(
    groups: Sequence[Mapping[str, Any]], opposites: Sequence[Sequence[str]]
) -> Prompt[Contradictions]:
    """``groups``: [{subject, facts: [{id, statement, predicate, object, valid_at}]}];
    ``opposites``: predicate pairs the ontology declares contradictory (the offline
    provider checks only those)."""
    user = json.dumps({"groups": list(groups)}, ensure_ascii=False, default=str)
    return Prompt(
        name="lint_contradictions",
        version=1,
        messages=[
            {"role": "system", "content": _LINT_SYSTEM},
            {"role": "user", "content": user},
        ],
        response_model=Contradictions,
        inputs={"groups": list(groups), "opposites": [list(p) for p in opposites]},
    )


class CommunitySummary(BaseModel):
    community: int
    title: str = Field(max_length=120)
    summary: str


class CommunitySummaries(BaseModel):
    summaries: list[CommunitySummary] = Field(default_factory=list)


_SUMMARIZE_SYSTEM = (
    "You name and summarise clusters of an AI agent's knowledge graph. Each community lists "
    "its most mentioned entities and some of its facts. For each, return a short title (a "
    "few words) and a one- or two-sentence summary of what ties it together, using only "
    "what is given. JSON: {'summaries': [{'community', 'title', 'summary'}]}."
)


def summarize_communities_v1(
    communities: Sequence[Mapping[str, Any]],
) -> Prompt[CommunitySummaries]:
    """``communities``: [{community, top: [names], facts: [statements]}]."""
    return Prompt(
        name="summarize_communities",
        version=1,
        messages=[
            {"role": "system", "content": _SUMMARIZE_SYSTEM},
            {"role": "user", "content": json.dumps({"communities": list(communities)})},
        ],
        response_model=CommunitySummaries,
        inputs={"communities": list(communities)},
    )


class FoldDigest(BaseModel):
    digest: str


_FOLD_SYSTEM = (
    "You keep one evolving digest of everything an AI agent has learned in one category of "
    "memory. You get the current digest and new notes (dated, oldest first). Rewrite the "
    "digest so it holds what is still true and useful: merge duplicates, and where a note "
    "contradicts the digest or an older note, keep the newer information (say what it "
    "replaced when that matters, with its date). Keep every detail that still stands, word "
    "for word: file paths, exact commands, version strings, names and numbers; when space "
    "runs out drop small talk and routine progress first, not old details. One statement "
    "per line, each line '- YYYY-MM-DD text', newest first. Stay within {budget} tokens. "
    "JSON: {{'digest': str}}."
)


def fold_v1(
    memory_type: str, digest: str, notes: Sequence[str], budget_tokens: int
) -> Prompt[FoldDigest]:
    """``notes``: lines '- YYYY-MM-DD speaker: text', oldest first."""
    return Prompt(
        name="fold",
        version=2,  # 2: keep details that still stand (issue 31.3)
        messages=[
            {"role": "system", "content": _FOLD_SYSTEM.format(budget=budget_tokens)},
            {
                "role": "user",
                "content": json.dumps(
                    {"memory_type": memory_type, "digest": digest, "notes": list(notes)}
                ),
            },
        ],
        response_model=FoldDigest,
        inputs={"digest": digest, "notes": list(notes), "budget_tokens": budget_tokens},
    )


class DigestText(BaseModel):
    id: str
    text: str


class Digests(BaseModel):
    digests: list[DigestText] = Field(default_factory=list)


_DIGEST_SYSTEM = (
    "You compress old memories of an AI agent, one way: what you write replaces the text for "
    "good. For each item write a digest of at most limit_chars characters that keeps who, "
    "what, when, names, numbers and decisions, and drops small talk. Never add anything the "
    "text does not say. JSON: {'digests': [{'id': str, 'text': str}]}, one per item."
)


def digest_v1(items: Sequence[Mapping[str, Any]]) -> Prompt[Digests]:
    """``items``: [{id, text, limit_chars}]."""
    return Prompt(
        name="digest",
        version=1,
        messages=[
            {"role": "system", "content": _DIGEST_SYSTEM},
            {"role": "user", "content": json.dumps({"items": list(items)})},
        ],
        response_model=Digests,
        inputs={"items": list(items)},
    )


class FoundAttitude(BaseModel):
    episode_id: str
    category: str
    statement: str
    context: str | None = None
    polarity: int = 1


class FoundSkillUse(BaseModel):
    episode_id: str
    name: str
    kind: str = "do"


class PersonaFindings(BaseModel):
    attitudes: list[FoundAttitude] = Field(default_factory=list)
    skills: list[FoundSkillUse] = Field(default_factory=list)


_PERSONA_SYSTEM = (
    "From what a person said, find (1) their attitudes: how they like things done, each in "
    "one category of {categories}, as a short statement in their words, with a context when "
    "they limit it ('in chat', 'for reports') and polarity 1 (prefers) or -1 (avoids); and "
    "(2) skill uses: a named skill and the kind of use, one of read, do, teach, build. Only "
    "what the text says; nothing about anyone else. JSON: {{'attitudes': [{{'episode_id', "
    "'category', 'statement', 'context', 'polarity'}}], 'skills': [{{'episode_id', 'name', "
    "'kind'}}]}}."
)


def persona_v1(
    episodes: Sequence[Mapping[str, Any]], categories: Sequence[str]
) -> Prompt[PersonaFindings]:
    """``episodes``: [{id, speaker, text}]."""
    return Prompt(
        name="persona",
        version=1,
        messages=[
            {"role": "system", "content": _PERSONA_SYSTEM.format(categories=", ".join(categories))},
            {"role": "user", "content": json.dumps({"episodes": list(episodes)})},
        ],
        response_model=PersonaFindings,
        inputs={"episodes": list(episodes)},
    )


class UpdateVerdict(BaseModel):
    pair_id: str
    verdict: str = Field(description="update | coexist | unrelated")
    attribute: str = ""
    before: str = ""
    after: str = ""


class UpdateVerdicts(BaseModel):
    verdicts: list[UpdateVerdict] = Field(default_factory=list)


_UPDATES_SYSTEM = (
    "Each pair holds an older and a newer statement by the same speaker. Say whether the "
    "newer one replaces what the older says about one attribute of the speaker's own life "
    "(where they live, their employer, team, manager, school, diet, partner, commute, or "
    "similar: one value at a time): 'update'; whether both stay true ('coexist': a second pet, a "
    "second language); or whether they are about different things ('unrelated'). For an "
    "update give the attribute (one or two words) and the value before and after. Only what "
    "the text says. JSON: {'verdicts': [{'pair_id', 'verdict', 'attribute', 'before', "
    "'after'}]}."
)


def updates_v1(pairs: Sequence[Mapping[str, Any]]) -> Prompt[UpdateVerdicts]:
    """``pairs``: [{pair_id, old: {speaker, at, text}, new: {speaker, at, text}}]."""
    return Prompt(
        name="updates",
        version=1,
        messages=[
            {"role": "system", "content": _UPDATES_SYSTEM},
            {"role": "user", "content": json.dumps({"pairs": list(pairs)})},
        ],
        response_model=UpdateVerdicts,
        inputs={"pairs": list(pairs)},
    )


class IntentLabel(BaseModel):
    id: str
    intent: str


class IntentLabels(BaseModel):
    labels: list[IntentLabel] = Field(default_factory=list)


_INTENTS_SYSTEM = (
    "Label what each question asks for, with exactly one of: {labels} (lookup: it names a "
    "thing to find rather than asking). JSON: {{'labels': [{{'id', 'intent'}}]}}."
)


def intents_v1(queries: Sequence[Mapping[str, str]], labels: Sequence[str]) -> Prompt[IntentLabels]:
    """``queries``: [{id, query}]."""
    return Prompt(
        name="intents",
        version=1,
        messages=[
            {"role": "system", "content": _INTENTS_SYSTEM.format(labels=", ".join(labels))},
            {"role": "user", "content": json.dumps({"queries": list(queries)})},
        ],
        response_model=IntentLabels,
        inputs={"queries": list(queries)},
    )
