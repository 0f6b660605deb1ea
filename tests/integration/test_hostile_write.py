"""Real text never crashes a write: every derived record (attitudes, skills, entities, facts)
respects its own limits by construction, and a derivation that still fails is skipped and
counted while the memory itself is stored. Property-tested over any Unicode text and any JSON
value as an ingest line: each is stored or refused with a message, never a traceback and never
a partial write."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from memvault import FixedClock, MemVault
from memvault.cli.main import app
from memvault.embed import HashingEmbedder
from memvault.errors import InvalidInputError
from memvault.llm.provider_litellm import LiteLLMProvider
from memvault.persona.rules import STATEMENT_MAX, attitudes, skills

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def transcript(words: int) -> str:
    """A pasted video transcript: one run of words with no punctuation, a self-statement
    buried in it (within the first max_content_chars, so it is stored)."""
    filler = "so yeah and then we went over there and um the thing is like you know "
    before, after = words // 50, words // 16 * 2 - words // 50
    said = "why do I always fight with my partners and I prefer short answers when "
    return filler * before + said + filler * after


def test_a_long_transcript_is_stored_and_its_attitude_respects_the_limit(tmp_path: Path) -> None:
    text = transcript(2200)  # ~13,000 characters with no sentence end
    assert len(text) > 13000
    drafts = attitudes(text)
    assert drafts and all(len(d.statement) <= STATEMENT_MAX for d in drafts)
    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder(), clock=FixedClock(NOW)) as v:
        result = v.write_many([{"content": text, "speaker": "Maya"}])
        assert result.created == 1 and result.skipped == {}
        assert v.recall("fight with my partners", k=1)[0].id == result.episode_ids[0]
        assert all(len(a["statement"]) <= STATEMENT_MAX for a in v.attitudes(history=True))
        assert v.attitudes(history=True), "the rule still read the statement"


def test_a_skill_name_swept_from_a_run_of_text_is_not_a_skill() -> None:
    text = "I use " + "Averyveryveryverylongword" * 10 + " daily"
    assert skills(text) == []


def test_a_failing_extraction_is_skipped_and_counted_and_the_memory_stored(tmp_path: Path) -> None:
    """A model that answers garbage (litellm's mock_response): extraction fails, the write
    does not."""
    llm = LiteLLMProvider("gpt-4o-mini", mock_response="not json at all")
    with MemVault.open(
        tmp_path / "v.db", embedder=HashingEmbedder(), clock=FixedClock(NOW), llm=llm
    ) as v:
        result = v.write_many([{"content": "I moved to Lisbon.", "speaker": "Maya"}])
        assert result.created == 1
        assert sum(result.skipped.values()) == 1
        assert next(iter(result.skipped)).startswith("extraction: ")
        assert v.get_episode(result.episode_ids[0]).content == "I moved to Lisbon."


def test_a_run_of_capitals_too_long_for_a_name_costs_no_other_name(tmp_path: Path) -> None:
    """A pasted key of 312 capitals (found in real shared chats) is no name: the memory's
    names and facts are kept, nothing is skipped."""
    key = "BDVVIIESRSOTJMMOTHVTCIIW" * 13
    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder(), clock=FixedClock(NOW)) as v:
        text = f"My license key is {key} and I live in Porto with Ana Lima."
        assert v.write_many([{"content": text, "speaker": "Bo"}]).skipped == {}
        found = v.store.find_entities("default", ["Porto", "Ana Lima", key])
        assert sorted(e.name for e in found) == ["Ana Lima", "Porto"]
        assert [f.object for f in v.facts(predicate="lives_in")] == ["Porto"]


def test_a_models_name_too_long_for_an_entity_is_left_out_not_the_memorys_facts(
    tmp_path: Path,
) -> None:
    """A model answering with a run-on "name" (litellm's mock_response): that name is no
    one's; the memory's other names and its facts are kept."""
    long = "The " + "very " * 60 + "long name"
    answer = {
        "entities": [{"name": long, "type": "person"}, {"name": "Lisbon", "type": "place"}],
        "facts": [
            {"subject": "Maya", "predicate": "lives_in", "object": "Lisbon",
             "statement": "Maya lives in Lisbon", "object_is_entity": True},
            {"subject": "Maya", "predicate": "knows", "object": long,
             "statement": "Maya knows someone", "object_is_entity": True},
        ],
    }  # fmt: skip
    llm = LiteLLMProvider("gpt-4o-mini", mock_response=json.dumps(answer))
    with MemVault.open(
        tmp_path / "v.db", embedder=HashingEmbedder(), clock=FixedClock(NOW), llm=llm
    ) as v:
        result = v.write_many([{"content": "I moved to Lisbon.", "speaker": "Maya"}])
        assert result.skipped == {} and result.facts_created == 2
        assert [e.name for e in v.store.find_entities("default", ["Lisbon", long])] == ["Lisbon"]
        knows = v.facts(predicate="knows")[0]
        assert knows.object == long and knows.object_id is None  # kept as a value


def test_the_cli_write_reports_what_was_not_derived(tmp_path: Path) -> None:
    db = tmp_path / "v.db"
    runner = CliRunner()
    env = {"MEMVAULT_EMBEDDER": "hashing"}
    out = runner.invoke(app, ["--db", str(db), "write", transcript(2200), "--json"], env=env)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["created"] is True and data["derivations_skipped"] == {}


# -- property: any text, any JSON line -------------------------------------------------------

TEXT = st.text(max_size=3000) | st.builds(
    lambda a, n: a * n, st.text(min_size=1, max_size=40), st.integers(1, 25_000)
)
JSON = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=200),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner),
    max_leaves=20,
)
LINE = (
    st.fixed_dictionaries({"content": TEXT}, optional={"speaker": st.text(max_size=300)})
    | st.fixed_dictionaries({"content": JSON}, optional={"type": JSON, "occurred_at": JSON})
    | JSON
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=TEXT)
def test_any_text_is_stored_or_refused_with_a_message(tmp_path: Path, text: str) -> None:
    with MemVault.open(tmp_path / "p.db", embedder=HashingEmbedder(), clock=FixedClock(NOW)) as v:
        before = v.stats()["episodes"]
        try:
            result = v.write_many([{"content": text, "speaker": "Maya", "session_id": "s"}])
        except InvalidInputError as exc:
            assert str(exc)  # a message that names the problem
            assert v.stats()["episodes"] == before  # and nothing was written
            return
        assert result.created + result.duplicates == 1


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(line=LINE)
def test_any_json_line_is_ingested_or_refused_by_line_number(tmp_path: Path, line: object) -> None:
    path = tmp_path / "lines.jsonl"
    path.write_text(json.dumps(line, allow_nan=True) + "\n", encoding="utf-8")
    db = tmp_path / "ingest.db"
    runner = CliRunner()
    env = {"MEMVAULT_EMBEDDER": "hashing"}
    args = ["--db", str(db), "ingest", str(path), "--json", "-n", "fuzz"]
    out = runner.invoke(app, args, env=env)
    assert out.exception is None or isinstance(out.exception, SystemExit), out.exception
    assert out.exit_code in (0, 2), out.output
    if out.exit_code == 2:
        error = json.loads(out.stderr)["error"]
        assert error["message"]
