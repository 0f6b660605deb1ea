"""The command line, end to end: real vault files, real JSONL, exit codes and messages.

Most cases run in-process through typer's runner (same code path as the console script);
one runs the installed ``memvault`` executable to prove the entry point works.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memvault.cli.main import app

ENV = {"MEMVAULT_EMBEDDER": "hashing", "MEMVAULT_DATA_DIR": ""}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "cli.db"


def run(db: Path, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--db", str(db), *args], input=stdin, env=ENV)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_ingest_recall_facts_stats_round_trip(db: Path, tmp_path: Path) -> None:
    src = write_lines(
        tmp_path / "m.jsonl",
        [
            json.dumps({"content": "I live in Lisbon now.", "speaker": "Maya"}),
            json.dumps({"content": "The standup moved to 9:30.", "type": "project"}),
            json.dumps(
                {
                    "record": "fact",
                    "subject": "Maya",
                    "predicate": "works at",
                    "object": "Tidewater",
                    "valid_at": "2024-03-01",
                }
            ),
        ],
    )
    code, out, _ = run(db, "ingest", str(src), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["created"] == 2 and report["facts_written"] == 1 and report["skipped"] == []

    code, out, _ = run(db, "recall", "where does Maya live", "--json")
    assert code == 0
    hits = json.loads(out)
    assert "Lisbon" in hits[0]["text"]
    assert hits[0]["why"] and hits[0]["explanation"]["factors"]

    code, out, _ = run(db, "facts", "--subject", "maya", "--json")
    assert code == 0
    found = {(f["predicate"], f["object"]) for f in json.loads(out)}
    assert ("works_at", "Tidewater") in found
    assert ("lives_in", "Lisbon") in found

    code, out, _ = run(db, "facts", "--subject", "maya", "--as-of", "2024-01-01", "--json")
    assert ("works_at", "Tidewater") not in {(f["predicate"], f["object"]) for f in json.loads(out)}

    code, out, _ = run(db, "stats", "--json")
    assert code == 0 and json.loads(out)["episodes"] == 2


def test_malformed_lines_are_reported_with_numbers_and_nothing_is_written(
    db: Path, tmp_path: Path
) -> None:
    src = write_lines(
        tmp_path / "bad.jsonl",
        [
            json.dumps({"content": "a good memory"}),
            "{not json",
            json.dumps({"content": "typed wrongly", "type": "diary"}),
            json.dumps({"content": "   "}),
            json.dumps({"content": "when?", "occurred_at": "yesterday-ish"}),
        ],
    )
    code, _, err = run(db, "ingest", str(src), "--json")
    assert code == 2
    problems = {p["where"]: p["message"] for p in json.loads(err)["error"]["problems"]}
    assert set(problems) == {"line 2", "line 3", "line 4", "line 5"}
    assert "not JSON" in problems["line 2"]
    assert "diary" in problems["line 3"] or "type" in problems["line 3"]
    _, out, _ = run(db, "stats", "--json")
    assert json.loads(out)["episodes"] == 0


def test_skip_invalid_writes_the_good_lines_and_lists_the_rest(db: Path, tmp_path: Path) -> None:
    src = write_lines(
        tmp_path / "mixed.jsonl",
        [
            json.dumps({"content": "first good one"}),
            "[1, 2]",
            json.dumps({"content": "second good one", "importance": 7}),
            json.dumps({"content": "third good one"}),
        ],
    )
    code, _, err = run(db, "ingest", str(src))  # all or nothing by default: says how else
    assert code == 2 and "nothing was written" in err and "--skip-invalid" in err
    code, out, _ = run(db, "ingest", str(src), "--skip-invalid", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["created"] == 2
    assert [s["where"] for s in report["skipped"]] == ["line 2", "line 3"]


def test_non_utf8_and_missing_files_exit_2_with_a_message(db: Path, tmp_path: Path) -> None:
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("café au lait".encode("latin-1"))
    code, _, err = run(db, "ingest", str(bad))
    assert code == 2 and "UTF-8" in err
    code, _, err = run(db, "ingest", str(tmp_path / "nope.jsonl"))
    assert code == 2 and "cannot read" in err


def test_text_ingest_splits_paragraphs_and_reads_stdin(db: Path) -> None:
    code, out, _ = run(
        db, "ingest", "-", "--format", "text", "--json", stdin="one idea\n\nanother idea\n"
    )
    assert code == 0 and json.loads(out)["created"] == 2


def test_bad_dates_and_unknown_commands_are_usage_errors(db: Path) -> None:
    run(db, "init")
    code, _, err = run(db, "recall", "anything", "--as-of", "last tuesday", "--json")
    assert code == 2
    assert json.loads(err)["error"]["field"] == "--as-of"
    code, _, _ = run(db, "frobnicate")
    assert code == 2


def test_feedback_on_a_missing_record_is_not_found(db: Path) -> None:
    run(db, "init")
    code, _, err = run(db, "feedback", "ep_missing", "up", "--json")
    assert code == 1
    assert json.loads(err)["error"]["type"] == "NotFoundError"


def test_export_import_restores_a_namespace(db: Path, tmp_path: Path) -> None:
    run(db, "ingest", "-", "--format", "text", "-n", "alpha", stdin="I live in Porto.\n")
    dump = tmp_path / "alpha.jsonl"
    code, _, _ = run(db, "export", "-n", "alpha", "--out", str(dump))
    assert code == 0
    other = tmp_path / "restored.db"
    code, out, _ = run(other, "import", str(dump), "--json")
    assert code == 0 and json.loads(out)["counts"]["episode"] == 1
    _, out, _ = run(other, "recall", "Porto", "-n", "alpha", "--json")
    assert "Porto" in json.loads(out)[0]["text"]


def test_import_into_another_namespace_copies_and_leaves_the_source_whole(
    db: Path, tmp_path: Path
) -> None:
    # found by running the README: the copy used to take the records out of the source
    run(db, "write", "I live in Porto.", "-n", "alpha", "--speaker", "Ana")
    run(db, "write", "I live in Porto!", "-n", "alpha", "--speaker", "Ana", "--session", "s2")
    dump = tmp_path / "alpha.jsonl"
    run(db, "export", "-n", "alpha", "--out", str(dump))
    _, before, _ = run(db, "stats", "-n", "alpha", "--json")
    for _ in range(2):  # importing the same dump twice changes nothing more
        code, _, _ = run(db, "import", str(dump), "-n", "alpha-copy")
        assert code == 0
    _, after, _ = run(db, "stats", "-n", "alpha", "--json")
    _, copy, _ = run(db, "stats", "-n", "alpha-copy", "--json")
    assert json.loads(after) == json.loads(before)
    source, copied = json.loads(after), json.loads(copy)
    for kind in ("episodes", "facts", "entities", "mentions", "vectors"):
        assert copied[kind] == source[kind] > 0, kind
    for ns in ("alpha", "alpha-copy"):
        _, out, _ = run(db, "recall", "Porto", "-n", ns, "--json")
        assert "Porto" in json.loads(out)[0]["text"]


def test_installed_console_script_runs(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("memvault")
    env = {**os.environ, **ENV, "MEMVAULT_DB_PATH": str(tmp_path / "x.db")}
    done = subprocess.run(
        [str(exe), "init", "--json"], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["embedder"].startswith("hashing")
    done = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=60)
    assert "recall" in done.stdout and "eval" in done.stdout


def test_dream_preview_apply_review_report_and_undo(db: Path, tmp_path: Path) -> None:
    lines = [
        json.dumps(
            {
                "content": text,
                "speaker": "Maya",
                "session_id": f"s{i}",
                "occurred_at": f"2025-0{i}-01T10:00:00",
            }
        )
        for i, text in enumerate(
            [
                "I live in Berlin.",
                "My manager is Ana.",
                "I moved to Lisbon.",
                "My manager is Bob.",
                "I enjoy surfing.",
                "I enjoy surfing!",
            ],
            start=1,
        )
    ]
    lines.append(
        json.dumps(
            {
                "content": "My manager is Cy.",
                "speaker": "Maya",
                "session_id": "s4",
                "occurred_at": "2025-04-01T10:00:00",
            }
        )
    )
    run(db, "ingest", str(write_lines(tmp_path / "maya.jsonl", lines)))
    code, out, _ = run(db, "dream", "--now", "2025-07-01", "--json")
    assert code == 0
    preview = json.loads(out)
    assert preview["status"] == "planned" and preview["report"]["changes"] > 0
    _, stats_out, _ = run(db, "dream", "runs", "--json")
    assert json.loads(stats_out) == []  # the preview wrote nothing

    code, out, _ = run(db, "dream", "--apply", "--now", "2025-07-01", "--json")
    applied = json.loads(out)
    assert code == 0 and applied["status"] == "applied" and applied["applied"] > 0
    run_id = applied["run_id"]
    code, out, _ = run(db, "facts", "--predicate", "lives_in", "--as-of", "2025-06-01", "--json")
    assert [f["object"] for f in json.loads(out)] == ["Lisbon"]

    code, out, _ = run(db, "review", "list", "--json")
    items = json.loads(out)
    assert code == 0 and len(items) == 1  # Bob and Cy named for the same instant
    code, out, _ = run(db, "review", "approve", items[0]["id"], "--json")
    assert code == 0 and json.loads(out)["applied"] == 1
    code, _, err = run(db, "review", "approve", items[0]["id"], "--json")
    assert code == 2 and "already approved" in json.loads(err)["error"]["message"]

    code, out, _ = run(db, "dream", "report", run_id, "--json")
    assert code == 0 and json.loads(out)["status"] == "applied"
    code, out, _ = run(db, "dream", "undo", run_id, "--json")
    assert code == 0 and json.loads(out)["restored"] > 0
    code, out, _ = run(db, "facts", "--predicate", "lives_in", "--json")
    assert sorted(f["object"] for f in json.loads(out)) == ["Berlin", "Lisbon"]

    code, out, _ = run(db, "dream", "--now", "2025-07-02", "--json")
    assert json.loads(out)["status"] == "skipped" and json.loads(out)["gate"]

    code, _, err = run(db, "dream", "report", "dr_nope", "--json")
    assert code == 1 and json.loads(err)["error"]["type"] == "NotFoundError"
    code, _, _ = run(db, "dream", "--now", "someday")
    assert code == 2


def test_graph_edges_communities_and_ppr(db: Path, tmp_path: Path) -> None:
    lines = []
    for i in range(6):
        lines.append({"content": "Ana and Bo went hiking in Sintra.", "session_id": f"h{i}"})
        lines.append({"content": "Cy and Di cooked with Eve in Porto.", "session_id": f"c{i}"})
    lines.append({"content": "Ana once met Eve.", "session_id": "x"})
    src = write_lines(tmp_path / "g.jsonl", [json.dumps(x) for x in lines])
    run(db, "ingest", str(src))
    code, out, _ = run(db, "graph", "edges", "--json")
    pairs = {frozenset((e["a"], e["b"])) for e in json.loads(out)}
    assert code == 0 and frozenset(("Ana", "Bo")) in pairs
    assert frozenset(("Ana", "Eve")) not in pairs  # met once: below the threshold
    code, out, _ = run(db, "graph", "communities", "--json")
    groups = [set(c["top"]) for c in json.loads(out)["communities"]]
    assert {"Ana", "Bo", "Sintra"} in groups and {"Cy", "Di", "Eve", "Porto"} in groups
    code, out, _ = run(db, "graph", "communities", "--summarize", "--json")
    titled = {c["title"] for c in json.loads(out)["communities"]}
    assert code == 0 and len(titled) == 2 and all(titled)
    code, out, _ = run(db, "graph", "ppr", "Ana", "--json")
    ranked = [d["entity"] for d in json.loads(out)]
    assert ranked[0] == "Ana" and ranked.index("Bo") < ranked.index("Porto")
    code, _, _ = run(db, "graph", "communities", "--resolution", "-1")
    assert code == 2


def test_dream_fills_the_inbox_and_dismissed_items_stay_dismissed(db: Path, tmp_path: Path) -> None:
    lines = []
    for i in range(6):
        lines.append({"content": "Ana, Bo and Cy went hiking with Di.", "session_id": f"h{i}"})
        lines.append({"content": "Eve, Fay and Gus cooked with Hal.", "session_id": f"c{i}"})
        lines.append(
            {"content": f"Zed called again about the invoice number {i}.", "session_id": f"z{i}"}
        )
    run(db, "ingest", str(write_lines(tmp_path / "g.jsonl", [json.dumps(x) for x in lines])))
    code, out, _ = run(db, "dream", "--apply", "--force", "--json")
    assert code == 0
    assert json.loads(out)["report"]["stages"]["signal"]["discoveries"]["knowledge_gap"] >= 1
    code, out, _ = run(db, "inbox", "--json")
    items = json.loads(out)
    gaps = [i for i in items if i["kind"] == "knowledge_gap"]
    assert code == 0 and [g["entities"] for g in gaps] == [["Zed"]]
    assert "Zed" in gaps[0]["text"] and gaps[0]["evidence"]["neighbours"] == 0
    code, out, _ = run(db, "recall", "Zed", "--json")
    assert all(h["kind"] in ("episode", "fact") for h in json.loads(out))  # never in recall

    code, _, _ = run(db, "inbox", "dismiss", gaps[0]["id"])
    assert code == 0
    run(db, "dream", "--apply", "--force", "--now", "2030-01-01")
    _, out, _ = run(db, "inbox", "list", "--json")
    assert gaps[0]["id"] not in {i["id"] for i in json.loads(out)}
    _, out, _ = run(db, "inbox", "list", "--all", "--json")
    assert {i["id"]: i["status"] for i in json.loads(out)}[gaps[0]["id"]] == "dismissed"
    code, _, err = run(db, "inbox", "seen", "dsc_missing", "--json")
    assert code == 1 and json.loads(err)["error"]["type"] == "NotFoundError"
