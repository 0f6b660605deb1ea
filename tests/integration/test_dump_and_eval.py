"""The logical dump (backup format), schema versioning, and the evaluation contract."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder
from memvault.errors import InvalidBatchError, InvalidInputError, SchemaVersionError
from memvault.eval.recall_eval import run_recall_eval
from memvault.kg.sqlite.schema import SCHEMA_VERSION
from tests.conftest import T0


def _dump(vault: MemVault, namespace: str = "default") -> str:
    out = io.StringIO()
    vault.export(out, namespace=namespace)
    return out.getvalue()


def _fill(vault: MemVault) -> None:
    vault.write_many(
        [
            {"content": "I live in Berlin.", "speaker": "Maya", "session_id": "s1"},
            {"content": "My manager is Priya.", "speaker": "Maya", "session_id": "s1"},
        ]
    )
    vault.add_fact(subject="Maya", predicate="likes", object="climbing", valid_at=T0)


def test_export_is_deterministic_and_import_restores_everything(
    vault: MemVault, tmp_path: Path
) -> None:
    _fill(vault)
    first = _dump(vault)
    assert first == _dump(vault)
    header = json.loads(first.splitlines()[0])
    assert header["format"] == "memvault-dump" and header["namespace"] == "default"

    with MemVault.open(
        tmp_path / "copy.db", embedder=HashingEmbedder(), clock=FixedClock(T0)
    ) as copy:
        summary = copy.import_(io.StringIO(first))
        assert summary.reembedded == 0  # same embedder: vectors reused
        assert _dump(copy) == first
        again = copy.import_(io.StringIO(first))  # idempotent
        assert again.counts == summary.counts and _dump(copy) == first
        assert "Berlin" in copy.recall("where does Maya live")[0].text  # the fact answers


def test_import_into_another_namespace_and_reembed_on_embedder_change(
    vault: MemVault, tmp_path: Path
) -> None:
    _fill(vault)
    dump = _dump(vault).splitlines()
    header = json.loads(dump[0]) | {"embedder": "some-other-model"}
    text = "\n".join([json.dumps(header), *dump[1:]])
    summary = vault.import_(io.StringIO(text), namespace="restored")
    assert summary.namespace == "restored" and summary.reembedded > 0
    assert vault.stats(namespace="restored")["episodes"] == 2
    assert vault.recall("Priya", namespace="restored")


def test_a_bad_dump_names_its_lines_and_writes_nothing(vault: MemVault) -> None:
    _fill(vault)
    lines = _dump(vault).splitlines()
    broken = [
        *lines[:2],
        "{oops",
        json.dumps({"type": "planet", "data": {}}),
        json.dumps({"type": "fact", "data": {"id": "f1"}}),
        *lines[2:],
    ]
    with pytest.raises(InvalidBatchError) as err:
        vault.import_(io.StringIO("\n".join(broken)), namespace="other")
    assert [p.where for p in err.value.problems] == ["line 3", "line 4", "line 5"]
    assert "planet" in err.value.problems[1].message
    assert "other" not in vault.namespaces()

    with pytest.raises(InvalidInputError, match="header"):
        vault.import_(io.StringIO('{"hello": 1}\n'))
    with pytest.raises(InvalidInputError, match="empty"):
        vault.import_(io.StringIO(""))


def test_a_file_from_a_newer_memvault_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    MemVault.open(path, embedder=HashingEmbedder()).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = path.read_bytes()
    with pytest.raises(SchemaVersionError, match="newer"):
        MemVault.open(path, embedder=HashingEmbedder())
    assert path.read_bytes() == before


def _contract_files(tmp_path: Path) -> tuple[Path, Path]:
    turns = [
        ("c1", "s1", "2023-05-08T13:56:00", "D1:1", "Ann", "I adopted a puppy named Biscuit!"),
        ("c1", "s1", "2023-05-08T13:56:00", "D1:2", "Ben", "Cute! What breed is Biscuit?"),
        ("c1", "s1", "2023-05-08T13:56:00", "D1:3", "Ann", "A beagle, he loves long walks."),
        ("c1", "s2", "2023-06-01T09:00:00", "D2:1", "Ben", "I started learning the cello."),
        ("c1", "s2", "2023-06-01T09:00:00", "D2:2", "Ann", "My sister plays violin in Oslo."),
        ("c2", "s1", "1:56 pm on 8 May, 2023", "D1:1", "Cy", "I run marathons every spring."),
        ("c2", "s1", "1:56 pm on 8 May, 2023", "D1:2", "Di", "I bake sourdough on weekends."),
    ]
    turns_path = tmp_path / "turns.jsonl"
    turns_path.write_text(
        "\n".join(
            json.dumps(
                {
                    "conv_id": c,
                    "session_id": s,
                    "session_time": t,
                    "turn_id": tid,
                    "speaker": sp,
                    "text": x,
                }
            )
            for c, s, t, tid, sp, x in turns
        )
    )
    questions = [
        ("c1", "q1", "What breed is Ann's dog?", "single-hop", ["D1:3"]),
        ("c1", "q2", "What instrument did Ben start learning?", "single-hop", ["D2:1"]),
        ("c1", "q3", "Where does Ann's sister play?", "multi-hop", ["D2:2"]),
        ("c2", "q4", "What does Di bake?", "single-hop", ["D1:2"]),
        ("c2", "q5", "Did Cy ever go to the moon?", "adversarial", ["D1:1"]),
    ]
    questions_path = tmp_path / "questions.jsonl"
    questions_path.write_text(
        "\n".join(
            json.dumps(
                {
                    "conv_id": c,
                    "question_id": q,
                    "question": text,
                    "category_name": cat,
                    "evidence_turn_ids": ev,
                }
            )
            for c, q, text, cat, ev in questions
        )
    )
    return turns_path, questions_path


def test_recall_eval_follows_the_contract(tmp_path: Path) -> None:
    turns, questions = _contract_files(tmp_path)
    out = io.StringIO()
    with MemVault.open(tmp_path / "eval.db", embedder=HashingEmbedder()) as vault:
        report = run_recall_eval(vault, turns, questions, k=2, out=out)
        assert sorted(vault.namespaces()) == ["c1", "c2"]
    ranked = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["question_id"] for r in ranked] == ["q1", "q2", "q3", "q4", "q5"]
    for row in ranked:
        assert 0 < len(row["ranked"]) <= 2 and len(set(row["ranked"])) == len(row["ranked"])
    by_id = {r["question_id"]: r["ranked"] for r in ranked}
    assert by_id["q4"][0] == "D1:2"
    assert set(by_id["q4"]) <= {"D1:1", "D1:2"}  # c2's turns only: namespaces do not leak
    assert report.conversations == 2 and report.turns == 7 and report.questions == 5
    assert set(report.per_category) == {"single-hop", "multi-hop", "adversarial"}
    # overall counts the four non-adversarial questions only
    scores = [report.per_category[c]["recall@2"] for c in ("single-hop", "multi-hop")]
    counts = [report.per_category[c]["n"] for c in ("single-hop", "multi-hop")]
    expected = sum(s * n for s, n in zip(scores, counts, strict=True)) / sum(counts)
    assert report.overall == pytest.approx(expected, abs=1e-4)  # per-category are rounded


def test_recall_eval_scores_the_baselines_on_the_same_turns(tmp_path: Path) -> None:
    """BM25, cosine and their fusion ranked over what the vault stored, scored alike; the
    question of a rare word is BM25's first (a wrong corpus or mapping would miss it)."""
    turns, questions = _contract_files(tmp_path)
    with MemVault.open(tmp_path / "eval.db", embedder=HashingEmbedder()) as vault:
        plain = run_recall_eval(vault, turns, questions, k=1, out=None)
    assert plain.baselines == {}
    with MemVault.open(tmp_path / "eval2.db", embedder=HashingEmbedder()) as vault:
        report = run_recall_eval(vault, turns, questions, k=1, out=None, baselines=True)
    assert list(report.baselines) == ["bm25", "cosine", "rrf(bm25, cosine)"]
    for scored in report.baselines.values():
        assert set(scored["per_category"]) == set(report.per_category)
        assert scored["scored"] == report.scored == 5
    bm25 = report.baselines["bm25"]["per_category"]
    assert bm25["multi-hop"]["recall@1"] == 1.0  # "sister": one turn says it
    assert bm25["single-hop"]["recall@1"] < 1.0  # "breed of Ann's dog" shares no word
    assert report.per_category == plain.per_category  # memvault's own figures unchanged
    key = "recall@1"
    for name, row in report.per_category.items():
        beaten = any(b["per_category"][name][key] > row[key] for b in report.baselines.values())
        assert (name in report.below_baselines) == beaten
    assert plain.below_baselines == []


def test_recall_eval_names_bad_lines_and_orphan_questions_before_ingesting(
    tmp_path: Path,
) -> None:
    turns, questions = _contract_files(tmp_path)
    with MemVault.open(tmp_path / "eval.db", embedder=HashingEmbedder()) as vault:
        questions.write_text(
            json.dumps({"conv_id": "c1", "question_id": "q", "question": "?"})
            + "\n{broken\n"
            + json.dumps(
                {"conv_id": "c1", "question_id": "q2", "question": "?", "question_date": "soon"}
            )
        )
        with pytest.raises(InvalidBatchError) as err:
            run_recall_eval(vault, turns, questions, k=2, out=None)
        assert [p.where for p in err.value.problems] == [f"{questions}:2", f"{questions}:3"]
        assert "soon" in err.value.problems[1].message

        questions.write_text(json.dumps({"conv_id": "c9", "question_id": "q", "question": "?"}))
        with pytest.raises(InvalidBatchError, match="c9"):
            run_recall_eval(vault, turns, questions, k=2, out=None)
        assert vault.namespaces() == []  # nothing was ingested
