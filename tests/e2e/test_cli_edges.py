"""The command line at its edges: one memory from the shell, dates memvault cannot hold,
empty and huge inputs, files that cannot serve as a vault. Exit codes as the README says:
0 done, 2 bad input or configuration (an unusable file included), 1 anything else."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.e2e.test_cli import run, write_lines

EDGES = ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "edge.db"


def _episodes(db: Path) -> int:
    code, out, _ = run(db, "stats", "-n", "maya", "--json")
    assert code == 0
    return int(json.loads(out)["episodes"])


def test_write_one_memory_from_the_shell(db: Path) -> None:
    code, out, _ = run(
        db, "write", "I live in Porto.", "-n", "maya", "--speaker", "Maya", "--session", "s1",
        "--at", "2025-03-01", "--type", "user", "--json",
    )  # fmt: skip
    assert code == 0
    written = json.loads(out)
    assert written["created"] and written["facts_created"] == 1
    assert written["episode"]["occurred_at"].startswith("2025-03-01")
    assert written["episode"]["type"] == "user" and written["episode"]["session_id"] == "s1"
    code, out, _ = run(
        db, "write", "I live in Porto.", "-n", "maya", "--speaker", "Maya", "--session", "s1",
        "--at", "2025-03-01", "--type", "user",
    )  # fmt: skip
    assert code == 0 and "already known as" in out and written["id"] in out
    code, out, _ = run(db, "write", "-", "-n", "maya", stdin="The standup moved to 9:30.\n")
    assert code == 0 and "[maya] wrote" in out
    code, out, _ = run(db, "recall", "Porto", "-n", "maya", "--json")
    assert json.loads(out)[0]["id"] == written["id"]
    assert _episodes(db) == 2


def test_write_refuses_bad_input_and_changes_nothing(db: Path) -> None:
    run(db, "write", "A first memory.", "-n", "maya")
    for args in (
        ["   "],
        ["\u200b"],
        ["text", "--type", "dream"],
        ["text", "--importance", "2"],
        ["text", "--at", "yesterday-ish"],
    ):
        code, _, err = run(db, "write", *args, "-n", "maya", "--json")
        assert code == 2, args
        assert json.loads(err)["error"]["message"]
    assert _episodes(db) == 1


@pytest.mark.parametrize("edge", EDGES)
def test_dates_at_the_edge_of_time_exit_2_naming_the_option(
    db: Path, tmp_path: Path, edge: str
) -> None:
    run(db, "write", "A first memory.", "-n", "maya")
    for args, field in (
        (["write", "text", "--at", edge], "--at"),
        (["recall", "text", "--as-of", edge], "--as-of"),
        (["recall", "text", "--now", edge], "--now"),
        (["facts", "--as-of", edge], "--as-of"),
    ):
        code, _, err = run(db, *args, "-n", "maya", "--json")
        assert code == 2, args
        error = json.loads(err)["error"]
        assert error["field"] == field and "0100-01-01 and 8999-12-31" in error["message"]
        code, _, err = run(db, *args, "-n", "maya")
        assert code == 2 and "Traceback" not in err and field in err
    src = write_lines(
        tmp_path / "edge.jsonl",
        [
            json.dumps({"content": "fine"}),
            json.dumps({"content": "old", "occurred_at": edge}),
            json.dumps({"record": "fact", "subject": "A", "predicate": "p", "object": "b",
                        "valid_at": edge}),
            json.dumps({"conv_id": "c", "session_id": "1", "turn_id": "t1", "speaker": "A",
                        "text": "hi", "session_time": edge}),
        ],
    )  # fmt: skip
    code, _, err = run(db, "ingest", str(src), "-n", "maya", "--json")
    assert code == 2
    problems = {p["where"]: p["message"] for p in json.loads(err)["error"]["problems"]}
    assert set(problems) == {"line 2", "line 3", "line 4"}
    assert "occurred_at" in problems["line 2"] and "valid_at" in problems["line 3"]
    assert "session_time" in problems["line 4"]
    assert _episodes(db) == 1


def test_empty_input_is_an_error_unless_allowed(db: Path, tmp_path: Path) -> None:
    for name, body in (("e.txt", ""), ("w.txt", "  \n\t\n"), ("e.jsonl", "\n \n")):
        path = tmp_path / name
        path.write_text(body, encoding="utf-8")
        code, _, err = run(db, "ingest", str(path), "-n", "maya")
        assert code == 2 and "nothing to write" in err and "--allow-empty" in err
        code, out, _ = run(db, "ingest", str(path), "-n", "maya", "--allow-empty")
        assert code == 0 and "wrote 0 memories" in out


def test_truncation_is_said_in_the_human_output(db: Path, tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    path.write_text("word " * 4000 + "\n\nshort one\n", encoding="utf-8")
    code, out, _ = run(db, "ingest", str(path), "-n", "maya")
    assert code == 0
    assert "1 memories were truncated to 8000 characters" in " ".join(out.split())
    code, out, _ = run(db, "write", "x" * 9000, "-n", "maya")
    assert code == 0 and "truncated to 8000 characters" in " ".join(out.split())


def test_unusable_files_exit_2(db: Path, tmp_path: Path) -> None:
    garbage = tmp_path / "not-a-vault.db"
    garbage.write_bytes(b"this is not a database" * 100)
    code, _, err = run(garbage, "recall", "x", "--json")
    assert code == 2 and json.loads(err)["error"]["type"] == "UnusableStoreError"
    run(db, "write", "A first memory.", "-n", "maya")
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 99")
    code, _, err = run(db, "recall", "x", "-n", "maya", "--json")
    assert code == 2 and json.loads(err)["error"]["type"] == "SchemaVersionError"
    assert "upgrade memvault" in json.loads(err)["error"]["message"]


@pytest.mark.parametrize("ns", ["", "  ", "a\n", "a\nb", "\u200b", "../x"])
def test_a_bad_namespace_exits_2_and_writes_nowhere(db: Path, ns: str) -> None:
    run(db, "init")
    code, out, err = run(db, "write", "hello there", "-n", ns, "--json")
    assert code == 2 and json.loads(err)["error"]["field"] == "namespace", out
    code, out, _ = run(db, "recall", "hello", "--json")
    assert code == 0 and json.loads(out) == [], "nothing went to the default namespace"


@pytest.mark.parametrize(
    "args",
    [("recall", "hello"), ("facts",), ("stats",), ("export",), ("dream",), ("review", "list")],
)
def test_read_commands_on_a_missing_vault_say_so_and_create_nothing(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    missing = tmp_path / "nowhere" / "vault.db"
    code, _, err = run(missing, *args, "--json")
    assert code == 2
    assert "no vault at" in json.loads(err)["error"]["message"]
    assert not missing.exists() and not missing.parent.exists()


def test_diary_before_the_range_exits_2(db: Path) -> None:
    run(db, "write", "A first memory.", "-n", "maya")
    code, _, err = run(db, "diary", "--date", "0001-01-01", "-n", "maya", "--json")
    assert code == 2 and "range" in json.loads(err)["error"]["message"]


def test_deeply_nested_json_is_a_numbered_problem_not_a_crash(db: Path, tmp_path: Path) -> None:
    src = write_lines(
        tmp_path / "deep.jsonl",
        [json.dumps({"content": "fine line"}), "[" * 100_000 + "]" * 100_000],
    )
    code, _, err = run(db, "ingest", str(src), "--json")
    assert code == 2
    problem = json.loads(err)["error"]["problems"][0]
    assert problem["where"].endswith("line 2") and "nested too deeply" in problem["message"]
    code, out, _ = run(db, "ingest", str(src), "--skip-invalid", "--json")
    assert code == 0 and json.loads(out)["created"] == 1


def test_facts_with_a_whitespace_subject_exit_2(db: Path) -> None:
    run(db, "write", "I live in Porto.", "-n", "maya", "--speaker", "Maya")
    code, _, err = run(db, "facts", "--subject", "  ", "-n", "maya", "--json")
    assert code == 2 and json.loads(err)["error"]["field"] == "subject"


def test_a_field_other_tools_use_is_refused_naming_the_one_memvault_reads(
    db: Path, tmp_path: Path
) -> None:
    """A chat export's ``{"id", "text", "time", "session"}``: read as turns, its times and
    sessions were dropped without a word and every memory stood at the time of the import."""
    turn = {"id": "t1", "speaker": "Sam", "text": "I adopted a cat.", "time": "2026-02-10"}
    src = write_lines(tmp_path / "chat.jsonl", [json.dumps(turn | {"session": "s1"})])
    code, _, err = run(db, "ingest", str(src), "-n", "maya", "--json")
    assert code == 2
    problems = {p["message"] for p in json.loads(err)["error"]["problems"]}
    message = " ".join(problems)
    assert "time: unknown field, did you mean 'occurred_at'?" in message
    assert "id: unknown field, did you mean 'external_id'?" in message
    assert "session: unknown field, did you mean 'session_id'?" in message
    assert not db.exists() or _episodes(db) == 0
    # renamed, the turn keeps its own time and session beside the turn format's text
    fixed = {"external_id": "t1", "speaker": "Sam", "text": "I adopted a cat."}
    fixed |= {"occurred_at": "2026-02-10T19:00:00Z", "session_id": "s1"}
    write_lines(src, [json.dumps(fixed)])
    code, _, _ = run(db, "ingest", str(src), "-n", "maya")
    assert code == 0
    code, out, _ = run(db, "export", "-n", "maya")
    rows = [json.loads(line) for line in out.splitlines()]
    episode = next(r["data"] for r in rows if r.get("type") == "episode")
    assert episode["occurred_at"].startswith("2026-02-10T19:00")
    assert episode["session_id"] == "s1" and episode["external_id"] == "t1"


def test_a_field_nothing_resembles_lists_the_fields_there_are(db: Path, tmp_path: Path) -> None:
    src = write_lines(tmp_path / "m.jsonl", [json.dumps({"content": "x", "colour": "red"})])
    code, _, err = run(db, "ingest", str(src), "--json")
    assert code == 2
    message = json.loads(err)["error"]["problems"][0]["message"]
    assert message.startswith("colour: unknown field (the fields are content,")
    assert "anything else goes in 'metadata'" in message
    fact = {"record": "fact", "subject": "Sam", "predicate": "lives in", "object": "Leeds"}
    write_lines(src, [json.dumps(fact | {"valid_from": "2025-01-01"})])
    code, _, err = run(db, "ingest", str(src), "--json")
    assert code == 2 and "did you mean 'valid_at'?" in err


def test_jsonl_on_stdin_is_read_as_jsonl(db: Path) -> None:
    """``… | memvault ingest -`` stored each record as its own braces and quotes."""
    line = json.dumps({"content": "I live in Leeds.", "speaker": "Sam"})
    code, out, _ = run(db, "ingest", "-", "-n", "maya", "--json", stdin=line + "\n")
    assert code == 0 and json.loads(out)["created"] == 1
    code, out, _ = run(db, "recall", "Leeds", "-n", "maya", "--json")
    assert json.loads(out)[0]["text"] == "I live in Leeds."
    code, _, err = run(db, "ingest", "-", "--json", stdin='{"content": "x", "colour": 1}\n')
    assert code == 2 and "in stdin" in json.loads(err)["error"]["message"]
    code, out, _ = run(db, "ingest", "-", "-n", "notes", "--json", stdin="{ a thought }\n")
    assert code == 0 and json.loads(out)["created"] == 1, "not an object: a line of text"


def test_stats_says_the_janitor_kept_what_it_handed_to_the_tiers(db: Path, tmp_path: Path) -> None:
    """The janitor's snapshot read "lastCulledEpisodeIds 3" in `memvault stats`, as if three
    memories had been erased; they were handed to the tiers, whole."""
    lines = [
        json.dumps({"content": f"Old note {i} about the garden.", "occurred_at": f"2020-01-0{i}"})
        for i in range(1, 4)
    ]
    src = write_lines(tmp_path / "old.jsonl", lines)
    assert run(db, "ingest", str(src), "-n", "maya")[0] == 0
    assert run(db, "janitor", "-n", "maya", "--apply")[0] == 0
    code, out, _ = run(db, "stats", "-n", "maya")
    said = " ".join(out.replace("│", " ").split())
    assert code == 0 and "3 episodes past the TTL handed to the tiers (kept)" in said
    assert "lastCulled" not in said and _episodes(db) == 3
    code, out, _ = run(db, "stats", "-n", "maya", "--json")
    assert len(json.loads(out)["janitor"]["lastCulledEpisodeIds"]) == 3  # seed 002's keys


def test_the_short_ids_tables_show_are_taken_back(db: Path) -> None:
    """`recall` shows ids by their first 12 characters; forget, correct, reinforce and
    feedback answered "no episode with id" to them."""
    code, out, _ = run(db, "write", "My bank PIN is 4417.", "-n", "maya", "--json")
    whole = json.loads(out)["id"]
    code, out, _ = run(db, "recall", "PIN", "-n", "maya")
    short = whole[:12]
    assert code == 0 and short in out and whole not in out
    assert run(db, "reinforce", short, "-n", "maya")[1].strip() == "reinforced 1 memories"
    assert run(db, "feedback", short, "up", "-n", "maya")[0] == 0
    code, out, _ = run(db, "forget", short, "-n", "maya", "--json")
    assert code == 0 and json.loads(out)["episode_ids"] == [whole]
    code, out, _ = run(db, "correct", short, "My bank PIN is 4418.", "-n", "maya", "--json")
    assert code == 0 and json.loads(out)["old_id"] == whole
    code, _, err = run(db, "forget", "0123456789ab", "-n", "maya", "--json")
    assert code == 1 and "no episode with id '0123456789ab'" in err


def test_a_review_item_is_decided_by_the_start_of_its_id(db: Path) -> None:
    """The demo prints "review rv_b2c63"; a narrow terminal cut the id in `review list`."""
    for text in ("I love coffee.", "I hate coffee."):
        run(db, "write", text, "--speaker", "Kim", "--at", "2026-03-01T10:00:00Z", "-n", "k")
    assert run(db, "dream", "--apply", "--force", "-n", "k")[0] == 0
    code, out, _ = run(db, "review", "list", "-n", "k", "--json")
    (item,) = json.loads(out)
    code, out, _ = run(db, "review", "list", "-n", "k")
    assert item["id"] in out, "the whole id, in any terminal"
    code, out, _ = run(db, "review", "reject", item["id"][:8], "-n", "k", "--note", "both")
    assert code == 0 and out.strip() == "rejected"
    code, out, _ = run(db, "review", "list", "-n", "k", "--status", "rejected", "--json")
    assert [i["id"] for i in json.loads(out)] == [item["id"]]


def test_recall_shows_a_long_memory_clipped_and_whole_with_full(tmp_path: Path) -> None:
    """Found importing real chats: one 8,000-character reply filled several screens."""
    db = tmp_path / "long.db"
    reply = "The budget for the coast trip. " + "Stop at the old town and rest. " * 200
    assert run(db, "write", reply)[0] == 0
    code, out, _ = run(db, "recall", "budget for the coast trip", "-k", "1")
    assert code == 0 and "characters: --full)" in out and "old town" in out
    assert len(out) < 2_000
    code, out, _ = run(db, "recall", "budget for the coast trip", "-k", "1", "--full")
    assert code == 0 and "--full)" not in out and out.count("old town") > 100
    code, out, _ = run(db, "recall", "budget for the coast trip", "-k", "1", "--json")
    assert json.loads(out)[0]["text"] == reply.strip()  # machines get the memory whole


def test_stats_says_what_its_fact_counts_hold(tmp_path: Path) -> None:
    """Found using the CLI: `stats` said "facts 2" where `memvault facts` listed one (the
    other ended by a newer diet): the table says what each count holds; JSON keeps its keys."""
    db = tmp_path / "s.db"
    assert run(db, "write", "I'm vegetarian.", "--speaker", "Maya", "--at", "2026-01-05")[0] == 0
    assert run(db, "write", "I'm vegan now.", "--speaker", "Maya", "--at", "2026-03-05")[0] == 0
    code, out, _ = run(db, "stats")
    assert code == 0 and "no longer true ones included" in out and "memvault facts" in out
    code, out, _ = run(db, "stats", "--json")
    assert {"facts", "facts_all", "episodes"} <= set(json.loads(out))
