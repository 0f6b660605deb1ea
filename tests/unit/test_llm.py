import json

import pytest

from memvault.errors import LLMError
from memvault.llm import LiteLLMProvider, OfflineProvider, Prompt
from memvault.llm.prompts import Extraction, extract_v1
from memvault.offline_rules import offline_handlers


def test_offline_provider_answers_extraction_by_rule_and_counts_calls() -> None:
    llm = OfflineProvider(offline_handlers())
    out = llm.complete(
        extract_v1("I live in Oslo", speaker="Ana", subject_hint="user"), call_site="ingest.extract"
    )
    assert [(f.subject, f.predicate, f.object) for f in out.facts] == [("Ana", "lives_in", "Oslo")]
    assert llm.usage.snapshot()["ingest.extract"]["calls"] == 1


def test_offline_provider_refuses_prompts_it_has_no_rule_for() -> None:
    llm = OfflineProvider()
    prompt = Prompt(name="poetry", version=1, messages=[], response_model=Extraction)
    with pytest.raises(LLMError, match="poetry@v1"):
        llm.complete(prompt, call_site="x")
    assert llm.usage.snapshot()["x"]["failures"] == 1


def test_prompts_are_versioned_and_carry_their_response_model() -> None:
    prompt = extract_v1("hi", speaker=None, subject_hint="user")
    assert prompt.id == "extract@v1"
    assert prompt.response_model is Extraction
    assert json.loads(prompt.messages[1]["content"])["speaker"] == "user"


def test_litellm_path_parses_json_and_counts_tokens() -> None:
    answer = {
        "entities": [{"name": "Oslo", "type": "place"}],
        "facts": [
            {
                "subject": "Ana",
                "predicate": "lives_in",
                "object": "Oslo",
                "statement": "Ana lives in Oslo",
                "confidence": 0.9,
            }
        ],
    }
    llm = LiteLLMProvider("gpt-4o-mini", mock_response=json.dumps(answer))
    out = llm.complete(
        extract_v1("I live in Oslo", speaker="Ana", subject_hint="user"), call_site="ingest.extract"
    )
    assert out.facts[0].object == "Oslo"
    usage = llm.usage.snapshot()["ingest.extract"]
    assert usage["calls"] == 1
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0


def test_litellm_garbage_answer_is_retried_then_raised() -> None:
    llm = LiteLLMProvider("gpt-4o-mini", mock_response="this is not json", max_retries=1)
    with pytest.raises(LLMError, match="after 2 attempts"):
        llm.complete(extract_v1("x", speaker=None, subject_hint="user"), call_site="s")
    assert llm.usage.snapshot()["s"]["calls"] == 2


def test_litellm_answer_in_code_fences_is_accepted() -> None:
    llm = LiteLLMProvider(
        "gpt-4o-mini", mock_response='```json\n{"entities": [], "facts": []}\n```'
    )
    out = llm.complete(extract_v1("x", speaker=None, subject_hint="user"), call_site="s")
    assert out == Extraction()


def test_a_models_unusable_triples_are_dropped_not_fatal() -> None:
    from memvault.llm.prompts import Extraction

    answer = Extraction.model_validate(
        {
            "facts": [
                {"subject": "Ana", "predicate": "lives in", "object": "Porto", "statement": "s"},
                {"subject": "Ana", "predicate": "!!", "object": "x", "statement": "s"},
                {"subject": " ", "predicate": "likes", "object": "x", "statement": "s"},
            ]
        }
    )
    assert [f.predicate for f in answer.facts] == ["lives in"]
