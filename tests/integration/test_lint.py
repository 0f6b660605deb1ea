"""The knowledge lint on a real SQLite vault: each level catches its planted defect (and not
its control), an ontology file with a mistake is refused with its line, volatile predicates
reach the conflict judge, and a three-stage fix reaches the review queue and changes
nothing until approved."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault import FixedClock, MemVault
from memvault.cli.main import app
from memvault.embed import HashingEmbedder
from memvault.kg.model import Entity, EntityType, Fact
from memvault.kg.ontology import OntologyError, load_ontology
from memvault.kg.store import Batch
from memvault.llm import LiteLLMProvider

T = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
NOW = T + timedelta(days=60)


def day(n: int) -> datetime:
    return T + timedelta(days=n)


@pytest.fixture
def vault(tmp_path: Path) -> MemVault:
    v = MemVault.open(tmp_path / "lint.db", embedder=HashingEmbedder(), clock=FixedClock(NOW))
    yield v  # type: ignore[misc]
    v.close()


def codes(report: object) -> dict[str, list[dict[str, object]]]:
    out: dict[str, list[dict[str, object]]] = {}
    for f in report.json()["findings"]:  # type: ignore[attr-defined]
        out.setdefault(f["code"], []).append(f)
    return out


def entity(vault: MemVault, name: str, type: EntityType = EntityType.UNKNOWN) -> Entity:
    e = Entity(namespace="default", name=name, type=type, created_at=T, last_seen_at=T)
    vault.store.apply(Batch(namespace="default", entities=[e]))
    return e


def fact(vault: MemVault, s: Entity, predicate: str, o: Entity | str, **kw: object) -> Fact:
    obj = o.name if isinstance(o, Entity) else o
    f = Fact(
        namespace="default",
        subject_id=s.id,
        subject=s.name,
        predicate=predicate,
        object=obj,
        object_id=o.id if isinstance(o, Entity) else None,
        statement=f"{s.name} {predicate} {obj}",
        valid_at=kw.pop("valid_at", T),  # type: ignore[arg-type]
        created_at=kw.pop("created_at", T),  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )
    vault.store.apply(Batch(namespace="default", facts=[f]))
    return f


def test_structure_level_catches_orphans_loops_self_loops_and_broken_facts(
    vault: MemVault,
) -> None:
    ana = entity(vault, "Ana", EntityType.PERSON)
    bo = entity(vault, "Bo", EntityType.PERSON)
    cy = entity(vault, "Cy", EntityType.PERSON)
    lonely = entity(vault, "Nobody")
    # a reports_to loop (acyclic in the ontology) and a chain that is not a loop (control)
    loop = [
        fact(vault, ana, "reports_to", bo),
        fact(vault, bo, "reports_to", ana, created_at=day(3)),
    ]
    fact(vault, cy, "manages", ana)
    fact(vault, cy, "manages", bo)
    selfish = fact(vault, cy, "likes", cy)
    ghost = Fact(
        namespace="default",
        subject_id="no-such-entity",
        subject="Ghost",
        predicate="likes",
        object="tea",
        statement="Ghost likes tea",
        valid_at=T,
        created_at=T,
    )
    inverted = fact(vault, ana, "lives_in", "Porto", valid_at=day(10), invalid_at=day(5))
    vault.store.apply(Batch(namespace="default", facts=[ghost]))

    report = vault.lint(levels=["structure"])
    found = codes(report)
    assert [f["records"] for f in found["orphan_entity"]] == [[f"entity:{lonely.id}"]]
    assert len(found["cycle"]) == 1  # the loop, not the manages chain
    assert set(found["cycle"][0]["records"]) == {f"fact:{f.id}" for f in loop}
    # the fix retires the most recently learned fact of the loop
    assert found["cycle"][0]["fix"][0]["target_id"] == loop[1].id
    assert found["self_loop"][0]["records"] == [f"fact:{selfish.id}"]
    assert found["dangling_subject"][0]["records"] == [f"fact:{ghost.id}"]
    assert found["inverted_interval"][0]["records"] == [f"fact:{inverted.id}"]
    assert {f["level"] for f in report.json()["findings"]} == {"structure"}


def test_grounding_level_checks_types_and_flags_against_the_ontology(vault: MemVault) -> None:
    ana = entity(vault, "Ana", EntityType.PERSON)
    porto = entity(vault, "Porto", EntityType.PLACE)
    acme = entity(vault, "Acme", EntityType.ORGANIZATION)
    mystery = entity(vault, "Somewhere")
    fact(vault, ana, "lives_in", porto)  # control: person lives in a place
    wrong_range = fact(vault, ana, "manager", porto)  # a place as a manager
    wrong_domain = fact(vault, porto, "occupation", "teacher")  # a place with a job
    fact(vault, acme, "located_in", mystery)  # untyped, the ontology says place
    fact(vault, ana, "flies_to", "the moon")  # not in the ontology
    found = codes(vault.lint(levels=["grounding"]))
    assert [f["records"] for f in found["range_mismatch"]] == [[f"fact:{wrong_range.id}"]]
    assert [f["records"] for f in found["domain_mismatch"]] == [[f"fact:{wrong_domain.id}"]]
    untyped = found["untyped_entity"]
    assert untyped[0]["records"] == [f"entity:{mystery.id}"]
    assert untyped[0]["fix"][0]["summary"] == "type unknown→place"
    assert [f["records"] for f in found["unknown_predicate"]] == [["predicate:flies_to"]]


def test_llm_level_catches_a_semantic_contradiction_offline_and_with_a_model(
    vault: MemVault,
) -> None:
    ana = entity(vault, "Ana", EntityType.PERSON)
    old = fact(vault, ana, "likes", "coriander")
    new = fact(vault, ana, "dislikes", "coriander", valid_at=day(20))
    fact(vault, ana, "likes", "tea")  # control: no opposite about tea
    found = codes(vault.lint(levels=["llm"]))
    (item,) = found["semantic_contradiction"]
    assert set(item["records"]) == {f"fact:{old.id}", f"fact:{new.id}"}
    assert item["fix"][0]["target_id"] == old.id
    assert "offline rule" in item["evidence"]["reason"]

    # the litellm path, with a contradiction no rule knows: the model's answer is used
    vegetarian = fact(vault, ana, "diet", "vegetarian")
    steak = fact(vault, ana, "eats", "steak every day")
    answer = {
        "contradictions": [
            {
                "fact_ids": [vegetarian.id, steak.id],
                "wrong_fact_id": steak.id,
                "reason": "a vegetarian does not eat steak",
                "confidence": 0.7,
            },
            {"fact_ids": ["made-up", steak.id], "reason": "invented ids", "confidence": 0.9},
        ]
    }
    vault.c.llm = LiteLLMProvider("gpt-4o-mini", mock_response=json.dumps(answer))
    found = codes(vault.lint(levels=["llm"]))
    (item,) = found["semantic_contradiction"]  # the invented ids are ignored
    assert set(item["records"]) == {f"fact:{vegetarian.id}", f"fact:{steak.id}"}
    assert item["evidence"]["judge"].startswith("litellm")
    assert vault.c.llm.usage.snapshot()["lint.semantic"]["calls"] == 1


def test_a_three_stage_fix_reaches_review_and_changes_nothing_until_approved(
    vault: MemVault,
) -> None:
    ana = entity(vault, "Ana", EntityType.PERSON)
    bo = entity(vault, "Bo", EntityType.PERSON)
    fact(vault, ana, "reports_to", bo)
    wrong = fact(vault, bo, "reports_to", ana, created_at=day(2))
    before = _dump(vault)

    report = vault.lint(levels=["structure"], propose=True)
    p = report.proposals
    assert (p["marked"], p["confirmed"], p["submitted"]) == (1, 1, 1)
    assert _dump(vault) == before  # proposals only: no record changed
    (item,) = vault.review_items()
    assert item["id"] == p["review_ids"][0]
    assert "cycle" in item["reason"]

    again = vault.lint(levels=["structure"], propose=True).proposals
    assert again["submitted"] == 0 and again["already_queued"] == 1  # not queued twice

    vault.approve(item["id"])
    assert vault.store.get_facts("default", [wrong.id])[0].expired_at is not None
    assert "cycle" not in codes(vault.lint(levels=["structure"]))
    vault.undo_dream(p["run_id"])
    assert _dump(vault) == before


def test_stage_two_drops_a_fix_whose_records_changed(vault: MemVault) -> None:
    ana = entity(vault, "Ana", EntityType.PERSON)
    selfish = fact(vault, ana, "likes", ana)
    linter_report = vault.lint(levels=["structure"])
    # someone corrects the fact between the lint and the proposal
    vault.store.apply(
        Batch(namespace="default", facts=[selfish.model_copy(update={"confidence": 0.2})])
    )
    from memvault.lint.runner import Linter

    proposals = Linter(vault.c, vault.c.ontology).propose(linter_report, NOW)
    assert proposals["submitted"] == 0
    assert "changed since" in proposals["dropped"][0]["why"]
    assert vault.review_items() == []


def _dump(vault: MemVault) -> str:
    out = io.StringIO()
    vault.export(out)
    return "\n".join(line for line in out.getvalue().splitlines() if '"kind": "header"' not in line)


BAD_ONTOLOGIES = [
    ("predicates:\n  lives_in:\n    domain: [person, planet]\n", 3, "unknown entity type 'planet'"),
    ("predicates:\n  likes:\n    single_valued: maybe\n", 3, "must be true or false"),
    ("predicates:\n  likes:\n    colour: blue\n", 3, "unknown field 'colour'"),
    ("predicates:\n  a:\n    {}\n  a:\n    {}\n", 4, "defined twice"),
    ("predicates:\n  LivesIn:\n    {}\n", 2, "not snake_case"),
    ("predicates:\n  x:\n    range: planets\n", 3, "range must be"),
    ("predicates: [\n", 2, "not valid YAML"),
    ("opposites:\n  - [likes]\n", 2, "must be a pair"),
]


@pytest.mark.parametrize(("text", "line", "reason"), BAD_ONTOLOGIES)
def test_an_ontology_file_with_an_error_is_refused_with_its_line_and_reason(
    tmp_path: Path, text: str, line: int, reason: str
) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    with pytest.raises(OntologyError) as caught:
        load_ontology([path])
    assert caught.value.line == line
    assert reason in caught.value.reason
    assert f"mine.yaml:{line}" in str(caught.value)


def test_a_user_ontology_extends_the_shipped_one(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(
        "predicates:\n  likes:\n    single_valued: true\n"
        "  plays:\n    domain: [person]\n    range: [thing]\n"
    )
    onto = load_ontology([path])
    likes = onto.spec("likes")
    assert likes is not None and likes.single_valued and likes.domain == {"person"}
    assert onto.spec("plays") is not None and onto.spec("favorite_color") is not None


def test_volatile_predicates_are_detected_and_flagged_to_the_judge(vault: MemVault) -> None:
    for n, mood in enumerate(["calm", "tired", "excited", "calm"]):
        vault.add_fact("Ana", "current_city", mood + "ville", valid_at=day(n * 5), now=day(n * 5))
    path = Path(vault.settings.database).with_name("cities.yaml")
    path.write_text("predicates:\n  current_city:\n    single_valued: true\n")
    report = vault.lint(levels=["grounding"], ontology=[path])
    assert report.volatile["current_city"]["values"] == 3
    assert "undeclared_volatile" in codes(report)
    # the dream hands the conflicts to the judge with the flag, which supersedes confidently
    vault.c._ontology = load_ontology([path])
    result = vault.dream(force=True)
    # four statements, three facts (the second "calmville" reinforces the first)
    assert result.report["stages"]["signal"]["volatile_conflicts"] == 2
    judged = [c for c in result.plan.changes if c.op == "consolidate.supersede"]
    assert judged and all("changes often" in c.reasons[0].why for c in judged)


def test_lint_cli_json_and_a_bad_ontology_exit_code(tmp_path: Path) -> None:
    runner = CliRunner()
    env = {"MEMVAULT_DATA_DIR": str(tmp_path), "MEMVAULT_EMBEDDER": "hashing"}
    runner.invoke(app, ["write", "I live in Porto.", "--speaker", "Ana"], env=env)
    ok = runner.invoke(app, ["lint", "--json"], env=env)
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["levels"] == ["structure", "grounding", "claims", "llm"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("predicates:\n  lives_in:\n    domain: [planet]\n")
    refused = runner.invoke(app, ["lint", "--ontology", str(bad)], env=env)
    assert refused.exit_code == 2
    assert "bad.yaml:3" in refused.output and "planet" in refused.output
    level = runner.invoke(app, ["lint", "--level", "vibes"], env=env)
    said = " ".join(level.output.split())  # the console wraps long lines
    assert level.exit_code == 2 and "structure, grounding, claims, llm" in said


def test_a_loop_through_an_object_written_as_text_is_a_cycle(vault: MemVault) -> None:
    """31.2: the extractor may leave an object as text ("manages: bo") without linking it;
    the loop is still found through the entity that text names (case and spacing aside),
    and text that names no entity closes nothing."""
    ana = entity(vault, "Ana", EntityType.PERSON)
    bo = entity(vault, "Bo Lee", EntityType.PERSON)
    loop = [
        fact(vault, ana, "manages", "  bo lee ", created_at=day(1)),  # text, no entity id
        fact(vault, bo, "manages", ana, created_at=day(2)),
    ]
    fact(vault, ana, "manages", "the night shift")  # names no entity: no loop, no error
    found = codes(vault.lint(levels=["structure"]))
    assert len(found["cycle"]) == 1
    assert set(found["cycle"][0]["records"]) == {f"fact:{f.id}" for f in loop}
    assert found["cycle"][0]["fix"][0]["target_id"] == loop[1].id
