"""A namespace's own entity types (issue 31.1): defined once, used by the offline rules
through their cues and by a model through the extraction prompt; bad definitions refused
with what to fix; the REST API, the Client and the CLI give the same."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault import FixedClock, MemVault
from memvault.cli.main import app
from memvault.errors import InvalidInputError, MemvaultError, NotFoundError
from memvault.llm.prompts import extract_v1
from memvault.llm.provider_litellm import LiteLLMProvider
from tests.conftest import T0


def types_of(vault: MemVault, *names: str, ns: str = "maya") -> dict[str, str]:
    return {e.name: e.type for e in vault.store.find_entities(ns, list(names))}


def test_a_cue_gives_a_name_the_namespaces_own_type(vault: MemVault) -> None:
    vault.write("My dog Pepper chased a gull in Porto.", namespace="maya", speaker="Maya")
    assert types_of(vault, "Pepper")["Pepper"] != "pet"  # no such type yet
    vault.define_entity_type(
        "pet", "an animal someone keeps", cues=["dog", "cat"], namespace="maya"
    )
    vault.write("Our cat Luna sleeps all day; Pepper too.", namespace="maya", speaker="Maya")
    vault.write("The dog Pepper needs a walk.", namespace="maya", speaker="Maya")
    found = types_of(vault, "Pepper", "Luna", "Porto", "Maya")
    assert found["Luna"] == "pet" and found["Pepper"] == "pet"  # a later cue tells more
    assert found["Porto"] == "place" and found["Maya"] == "person"
    assert [t.name for t in vault.entity_types(namespace="maya")][-1] == "pet"
    assert all(t.name != "pet" for t in vault.entity_types(namespace="other"))


def test_a_model_is_shown_the_types_and_only_defined_ones_are_kept(tmp_path: Path) -> None:
    answer = {
        "entities": [
            {"name": "Biscuit", "type": "pet"},
            {"name": "Rocinante", "type": "spaceship"},
            {"name": "Lisbon", "type": "place"},
        ],
        "facts": [],
    }
    llm = LiteLLMProvider("gpt-4o-mini", mock_response=json.dumps(answer))
    with MemVault.open(tmp_path / "v.db", llm=llm, clock=FixedClock(T0)) as vault:
        vault.define_entity_type("pet", "an animal someone keeps", namespace="maya")
        vault.write("Biscuit and I flew the Rocinante to Lisbon.", namespace="maya")
        found = types_of(vault, "Biscuit", "Rocinante", "Lisbon")
    assert found == {"Biscuit": "pet", "Rocinante": "unknown", "Lisbon": "place"}
    shown = extract_v1("x", speaker=None, subject_hint="user", types={"pet": "kept animals"})
    assert "pet: kept animals" in shown.messages[0]["content"]
    plain = extract_v1("x", speaker=None, subject_hint="user")
    assert "pet" not in plain.messages[0]["content"]  # no types: the prompt as it was


@pytest.mark.parametrize(
    ("name", "description", "cues", "field"),
    [
        ("Pet!", "an animal", [], "name"),
        ("person", "a human", [], "name"),  # built-in
        ("pet", "", [], "description"),
        ("pet", "an animal", ["dog;DROP"], "cues"),
    ],
)
def test_a_bad_definition_is_refused_with_what_to_fix(
    vault: MemVault, name: str, description: str, cues: list[str], field: str
) -> None:
    with pytest.raises(InvalidInputError) as caught:
        vault.define_entity_type(name, description, cues=cues, namespace="maya")
    assert caught.value.field == field
    assert "[" not in str(caught.value)  # a sentence a person reads, no regex
    assert [t.name for t in vault.entity_types(namespace="maya") if not t.built_in] == []


def test_removing_a_type_keeps_what_was_typed(vault: MemVault) -> None:
    vault.define_entity_type("pet", "an animal", cues=["dog"], namespace="maya")
    vault.write("My dog Pepper barks.", namespace="maya", speaker="Maya")
    vault.remove_entity_type("pet", namespace="maya")
    vault.write("My dog Rex barks too.", namespace="maya", speaker="Maya")
    found = types_of(vault, "Pepper", "Rex")
    assert found["Pepper"] == "pet" and found["Rex"] != "pet"
    with pytest.raises(NotFoundError):
        vault.remove_entity_type("pet", namespace="maya")


def test_the_cli_defines_lists_and_refuses(tmp_path: Path) -> None:
    db = str(tmp_path / "v.db")
    run = CliRunner().invoke
    assert run(app, ["--db", db, "init"]).exit_code == 0
    done = run(app, ["--db", db, "types", "add", "pet", "an animal", "--cue", "dog", "-n", "m"])
    assert done.exit_code == 0, done.output
    listed = run(app, ["--db", db, "types", "list", "-n", "m", "--json"])
    assert json.loads(listed.output)[-1] == {
        "name": "pet", "description": "an animal", "cues": ["dog"], "built_in": False
    }  # fmt: skip
    bad = run(app, ["--db", db, "types", "add", "Pet!", "x", "-n", "m"])
    assert bad.exit_code == 2 and "lower-case" in bad.output
    gone = run(app, ["--db", db, "types", "remove", "ghost", "-n", "m"])
    assert gone.exit_code != 0 and "ghost" in gone.output


def test_the_dump_carries_the_namespaces_own_types(vault: MemVault) -> None:
    vault.define_entity_type("pet", "an animal", cues=["dog"], namespace="maya")
    vault.write("My dog Pepper barks.", namespace="maya", speaker="Maya")
    out = io.StringIO()
    vault.export(out, namespace="maya")
    vault.import_(io.StringIO(out.getvalue()), namespace="copy")
    own = [t for t in vault.entity_types(namespace="copy") if not t.built_in]
    assert [(t.name, t.cues) for t in own] == [("pet", ["dog"])]
    assert types_of(vault, "Pepper", ns="copy")["Pepper"] == "pet"


def test_a_dump_with_a_bad_definition_is_refused_like_a_bad_request(vault: MemVault) -> None:
    """The dump's definitions are checked as a definition is (cues that are no words)."""
    vault.define_entity_type("pet", "an animal", cues=["dog"], namespace="maya")
    out = io.StringIO()
    vault.export(out, namespace="maya")
    tampered = out.getvalue().replace('["dog"]', '["dog; DROP TABLE"]')
    with pytest.raises(MemvaultError):
        vault.import_(io.StringIO(tampered), namespace="copy")
    assert [t for t in vault.entity_types(namespace="copy") if not t.built_in] == []
