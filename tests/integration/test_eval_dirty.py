"""Real chat logs never break the evaluation: empty, zero-width, control-character and
byte-order-mark turns are skipped, counted and listed; huge turns are kept (truncated);
sessions with no date are placed; a turn id seen again (a session replayed at another date)
is counted and listed, never fatal: the same text once, another text kept under the id."""

from __future__ import annotations

import io
import json
from pathlib import Path

from memvault import MemVault
from memvault.embed import HashingEmbedder
from memvault.eval.recall_eval import run_recall_eval


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _turn(turn_id: str, text: str, session: str = "1", when: str | None = "2024-05-01") -> dict:
    row: dict[str, object] = {"conv_id": "c", "session_id": session, "turn_id": turn_id,
                              "speaker": "Ana", "text": text}  # fmt: skip
    if when:
        row["session_time_iso"] = when
    return row


DIRTY = [
    _turn("t1", "I adopted a cat called Miso."),
    _turn("t2", ""),
    _turn("t3", "\u200b"),
    _turn("t4", "\x00\x01\x02"),
    _turn("t5", "\ufeff \u200b\u200d"),
    _turn("t6", "I have been learning the cello. " * 700),  # ~23k characters
    _turn("t7", "We moved to Porto last spring.", session="2", when=None),
]
QUESTIONS = [
    {"conv_id": "c", "question_id": "q1", "question": "What is the cat called?",
     "evidence_turn_ids": ["t1"]},
    {"conv_id": "c", "question_id": "q2", "question": "Where did Ana move?",
     "evidence_turn_ids": ["t7"]},
]  # fmt: skip


def test_unusable_turns_are_skipped_counted_and_listed(tmp_path: Path) -> None:
    turns = _write(tmp_path / "t.jsonl", DIRTY)
    questions = _write(tmp_path / "q.jsonl", QUESTIONS)
    with MemVault.open(tmp_path / "e.db", embedder=HashingEmbedder()) as vault:
        report = run_recall_eval(vault, turns, questions, k=5, out=None)
        assert report.skipped == 4
        assert sum(report.skipped_reasons.values()) == 4
        assert [t["turn_id"] for t in report.skipped_turns] == ["t2", "t3", "t4", "t5"]
        assert report.skipped_turns[0]["where"].endswith("t.jsonl:2")
        assert report.undated_sessions == 1
        assert report.overall == 1.0  # everything else evaluated
        assert vault.stats(namespace="c")["episodes"] == 3
        cello = vault.recall("cello", namespace="c", k=1)[0]
        assert cello.episode is not None and cello.episode.metadata.get("truncated")


def test_a_repeated_turn_id_is_counted_and_never_fatal(tmp_path: Path) -> None:
    replay = [
        _turn("t1", "I adopted a cat called Miso.", session="3", when="2024-09-01"),  # same text
        _turn("t7", "Actually the move to Porto was in June.", session="3", when="2024-09-01"),
    ]
    turns = _write(tmp_path / "t.jsonl", [*DIRTY, *replay])
    questions = _write(tmp_path / "q.jsonl", QUESTIONS)
    with MemVault.open(tmp_path / "e.db", embedder=HashingEmbedder()) as vault:
        out = io.StringIO()
        report = run_recall_eval(vault, turns, questions, k=5, out=out)
        assert report.repeated == {"same_text": 1, "other_text": 1}
        listed = [(t["turn_id"], t["first"].rsplit(":", 1)[1], t["kind"]) for t in
                  report.repeated_turns]  # fmt: skip
        assert listed == [("t1", "1", "same_text"), ("t7", "7", "other_text")]
        assert report.overall == 1.0  # every question still answered
        assert vault.stats(namespace="c")["episodes"] == 4  # the other text is a memory too
        ranked = {json.loads(line)["question_id"]: json.loads(line)["ranked"]
                  for line in out.getvalue().splitlines()}  # fmt: skip
        assert all(len(r) == len(set(r)) for r in ranked.values())
        assert all("\u241f" not in t for r in ranked.values() for t in r)  # ranked as "t7"
        kept = {e.content: e.external_id for e in vault.episodes(namespace="c", limit=100)}
        assert kept["Actually the move to Porto was in June."].startswith("t7")


def test_the_cli_reports_what_it_skipped(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from memvault.cli.main import app

    turns = _write(tmp_path / "t.jsonl", DIRTY)
    questions = _write(tmp_path / "q.jsonl", QUESTIONS)
    env = {"MEMVAULT_EMBEDDER": "hashing"}
    args = ["eval", "recall", "--turns", str(turns), "--questions", str(questions), "--k", "5"]
    result = CliRunner().invoke(app, args, env=env)
    assert result.exit_code == 0, result.output
    assert "skipped: 4 turns" in " ".join(result.stdout.split())
    result = CliRunner().invoke(app, [*args, "--json"], env=env)
    data = json.loads(result.stdout)
    assert data["skipped"] == 4 and data["overall"] == 1.0
