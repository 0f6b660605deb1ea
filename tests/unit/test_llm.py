import json
from typing import Any

import pytest

from memvault.errors import LLMError
from memvault.llm import LiteLLMProvider, OfflineProvider, Prompt
from memvault.llm.prompts import Extraction, extract_v1
from memvault.llm.resilient import Resilient
from memvault.offline_rules import offline_handlers


def test_offline_provider_answers_extraction_by_rule_and_counts_calls() -> None:
    llm = OfflineProvider(offline_handlers())
    out = llm.complete(_ask("I live in Oslo"), call_site="ingest.extract")
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
    out = llm.complete(_ask("I live in Oslo"), call_site="ingest.extract")
    assert out.facts[0].object == "Oslo"
    usage = llm.usage.snapshot()["ingest.extract"]
    assert usage["calls"] == 1
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0


def test_litellm_garbage_answer_is_retried_then_raised() -> None:
    llm = LiteLLMProvider("gpt-4o-mini", mock_response="this is not json", max_retries=1)
    with pytest.raises(LLMError, match="after 2 attempt"):
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


def _ask(text: str) -> Prompt[Extraction]:
    return extract_v1(text, speaker="Ana", subject_hint="user")


class _Refused(Exception):
    status_code = 401  # litellm's mock raises it as an error with this status


def test_litellm_backs_off_on_an_outage_and_never_retries_a_refused_key() -> None:
    waits: list[float] = []
    outage = LiteLLMProvider(
        "gpt-4o-mini",
        mock_response="litellm.InternalServerError",
        max_retries=3,
        backoff_s=1.0,
        sleep=waits.append,
    )
    with pytest.raises(LLMError, match="4 attempt"):
        outage.complete(_ask("Maya moved to Lisbon."), call_site="t")
    assert len(waits) == 3  # between attempts, none after the last
    assert all(0.5 * 2**n <= w <= 2**n for n, w in enumerate(waits))  # doubling, jittered
    waits.clear()
    bad_key: Any = _Refused("bad key")
    refused = LiteLLMProvider("gpt-4o-mini", mock_response=bad_key, sleep=waits.append)
    with pytest.raises(LLMError, match="1 attempt"):
        refused.complete(_ask("Maya moved to Lisbon."), call_site="t")
    assert waits == []


def test_a_malformed_answer_is_asked_again_at_once_then_refused() -> None:
    waits: list[float] = []
    model = LiteLLMProvider(
        "gpt-4o-mini", mock_response="not json at all", max_retries=2, sleep=waits.append
    )
    with pytest.raises(LLMError, match=r"after 3 attempt.*not a valid Extraction"):
        model.complete(_ask("Maya moved to Lisbon."), call_site="t")
    assert waits == [0.0, 0.0]  # asked again at once, no backoff
    assert model.usage.by_site["t"].calls == 3


def test_an_outage_is_answered_by_the_rules_labelled_and_the_breaker_stops_asking() -> None:
    now = [0.0]
    model = LiteLLMProvider(
        "gpt-4o-mini", mock_response="litellm.InternalServerError", max_retries=0
    )
    rules = OfflineProvider(offline_handlers())
    llm = Resilient(model, rules, breaker_after=2, cooldown_s=60, clock=lambda: now[0])
    for _ in range(5):
        answer = llm.complete(
            _ask("I moved to Lisbon."),
            call_site="ingest.extract",
        )
        assert "Lisbon" in {e.name for e in answer.entities}  # the rules answered
    sites = llm.usage.snapshot()
    assert sites["ingest.extract"]["failures"] == 2  # the model was asked twice, then paused
    assert sites["ingest.extract:offline-fallback"]["calls"] == 5
    assert llm.open
    now[0] = 61.0  # the cooldown is over: the model is asked again
    llm.complete(
        _ask("I moved to Porto."),
        call_site="ingest.extract",
    )
    assert llm.usage.snapshot()["ingest.extract"]["failures"] == 3
    with pytest.raises(LLMError, match="InternalServerError"):  # no rule for it: the error
        Resilient(model, OfflineProvider({})).complete(_ask("x"), call_site="ingest.extract")
