"""`memvault ingest` of a ChatGPT or Claude data export (their conversations.json, or the .zip
they send): each message said to the person a memory, the branch the conversation shows, the
conversation as the session; a second import writes nothing again, a forgotten message stays
forgotten, and what cannot be read is listed with its place."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from memvault.interop.chat_exports import parse_export, sniff
from tests.e2e.test_cli import run

T0 = 1_717_000_000.0  # 2024-05-29


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "exports.db"


def _node(
    key: str,
    parent: str | None,
    role: str | None,
    text: Any = None,
    *,
    at: float | None = None,
    kind: str = "text",
    **extra: Any,
) -> dict[str, Any]:
    message = None
    if role is not None:
        content = {"content_type": kind, "parts": text if isinstance(text, list) else [text]}
        message = {
            "id": key,
            "author": {"role": role},
            "create_time": at,
            "content": content,
            "recipient": "all",
            "metadata": {},
            **extra,
        }
    return {"id": key, "message": message, "parent": parent, "children": []}


def chatgpt_export() -> list[dict[str, Any]]:
    nodes = [
        _node("root", None, None),
        _node(
            "sys",
            "root",
            "system",
            "You are ChatGPT.",
            at=T0,
            metadata={"is_visually_hidden_from_conversation": True},
        ),
        _node("u1", "sys", "user", "I live in Porto and I'm learning the cello.", at=T0 + 10),
        _node("a1", "u1", "assistant", "Lovely! Porto has a good conservatory.", at=T0 + 20),
        # the user edited their second message: two branches, the conversation shows "u2b"
        _node("u2a", "a1", "user", "Any teachers near Boavista?", at=T0 + 30),
        _node("u2b", "a1", "user", "Any cello teachers near Bonfim?", at=T0 + 40),
        _node(
            "tool",
            "u2b",
            "assistant",
            "search('cello Bonfim')",
            at=T0 + 41,
            kind="code",
            recipient="browser",
        ),
        _node(
            "a2",
            "tool",
            "assistant",
            ["Here are three.", {"asset_pointer": "file-1"}],
            at=T0 + 50,
            kind="multimodal_text",
        ),
        _node(  # a voice message: what was said, not the audio
            "v1",
            "a2",
            "user",
            [
                {"content_type": "audio_transcription", "text": "Thanks, I'll call the first."},
                {"content_type": "audio_asset_pointer", "asset_pointer": "sediment://x"},
            ],
            at=T0 + 60,
            kind="multimodal_text",
        ),
    ]
    talk = {
        "title": "Cello in Porto",
        "create_time": T0,
        "conversation_id": "c-1",
        "current_node": "v1",
        "mapping": {n["id"]: n for n in nodes},
    }
    no_time = {
        "title": "Untimed",
        "create_time": None,
        "conversation_id": "c-2",
        "current_node": "x",
        "mapping": {"x": _node("x", None, "user", "Hello?")},
    }
    empty = {"title": "Broken", "conversation_id": "c-3", "mapping": None}
    return [talk, no_time, empty]


def claude_export() -> list[dict[str, Any]]:
    return [
        {
            "uuid": "k-1",
            "name": "Moving flats",
            "created_at": "2024-06-02T09:00:00Z",
            "chat_messages": [
                {
                    "uuid": "m1",
                    "sender": "human",
                    "created_at": "2024-06-02T09:00:05Z",
                    "text": "",
                    "content": [{"type": "text", "text": "I moved to Bonfim last week."}],
                    "attachments": [{"file_name": "lease.txt", "extracted_content": "Lease…"}],
                },
                {
                    "uuid": "m2",
                    "sender": "assistant",
                    "created_at": "2024-06-02T09:00:09Z",
                    "text": "Congratulations on the move!",
                    "content": [],
                },
                {
                    "uuid": "m3",
                    "sender": "human",
                    "created_at": "2024-06-02T09:01:00Z",
                    "text": "   ",
                    "content": [],
                },  # nothing said
            ],
        }
    ]


def _episodes(db: Path) -> list[dict[str, Any]]:
    if not db.exists():  # a refused ingest creates no vault
        return []
    code, out, _ = run(db, "export", "--no-vectors")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    found = [r["data"] for r in rows if r.get("type") == "episode"]
    return sorted(found, key=lambda e: e["occurred_at"])


def _texts(db: Path) -> list[str]:
    return [e["content"] for e in _episodes(db)]


def test_a_chatgpt_export_is_read_as_the_conversation_shows_it(db: Path, tmp_path: Path) -> None:
    src = tmp_path / "conversations.json"
    src.write_text(json.dumps(chatgpt_export()), encoding="utf-8")
    code, out, err = run(db, "ingest", str(src))
    assert code != 0  # all or nothing: two conversations cannot be read, both are named
    assert "conversation 2 ('Untimed') message 1: no readable time" in out + err
    assert "conversation 3 ('Broken'): has no messages" in out + err
    said = " ".join((out + err).split())
    assert said.index("conversation 2 (") < said.index("conversation 3 (")  # in file order
    assert _texts(db) == []

    code, out, err = run(db, "ingest", str(src), "--skip-invalid", "--speaker", "Maya", "--json")
    assert code == 0, out + err
    report = json.loads(out)
    assert report["created"] == 5 and len(report["skipped"]) == 2
    assert report["left_out"] == {  # counted, so nothing vanishes unsaid
        "calls to a tool": 1,
        "earlier versions of edited or regenerated messages": 1,
        "system or tool messages": 1,  # the hidden system prompt
    }
    texts = _texts(db)
    assert texts == [
        "I live in Porto and I'm learning the cello.",
        "Lovely! Porto has a good conservatory.",
        "Any cello teachers near Bonfim?",  # the branch shown, not the edited-away one
        "Here are three.",  # the image left out; the tool call and system prompt too
        "Thanks, I'll call the first.",
    ]
    code, out, _ = run(db, "facts", "--json")
    facts = json.loads(out)
    rows = facts if isinstance(facts, list) else facts["facts"]
    assert any(f["subject"] == "Maya" and f["object"] == "Porto" for f in rows)

    # the same export again: nothing written twice
    code, out, _ = run(db, "ingest", str(src), "--skip-invalid", "--json")
    assert code == 0 and json.loads(out)["created"] == 0
    assert len(_texts(db)) == 5


def test_a_forgotten_message_stays_forgotten_when_the_export_is_read_again(
    db: Path, tmp_path: Path
) -> None:
    src = tmp_path / "conversations.json"
    src.write_text(json.dumps(chatgpt_export()[:1]), encoding="utf-8")
    assert run(db, "ingest", str(src))[0] == 0
    code, out, _ = run(db, "recall", "Porto conservatory", "--ids", "-k", "1")
    assert code == 0
    victim = out.split()[0]
    assert run(db, "forget", victim, "--apply")[0] == 0
    code, out, _ = run(db, "ingest", str(src), "--json")
    assert code == 0 and json.loads(out)["forgotten"] == 1
    assert "Lovely! Porto has a good conservatory." not in _texts(db)


def test_a_claude_export_in_its_zip(db: Path, tmp_path: Path) -> None:
    archive = tmp_path / "data-2024-06-03.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("users.json", "[]")
        z.writestr("conversations.json", json.dumps(claude_export()))
    code, out, err = run(db, "ingest", str(archive), "--json")
    assert code == 0, out + err
    assert json.loads(out)["created"] == 2
    assert json.loads(out)["left_out"] == {
        "messages with nothing to read": 1,
        "attached files (their text is not read)": 1,
    }
    assert not any("Lease" in t for t in _texts(db))
    assert _texts(db) == ["I moved to Bonfim last week.", "Congratulations on the move!"]
    episodes = _episodes(db)
    assert {e["speaker"] for e in episodes} == {"user", "assistant"}
    assert {e["session_id"] for e in episodes} == {"k-1"}
    assert episodes[0]["metadata"]["conversation"] == "Moving flats"
    assert episodes[0]["occurred_at"].startswith("2024-06-02T09:00:05")


def test_what_is_no_export_says_so(db: Path, tmp_path: Path) -> None:
    plain = tmp_path / "list.json"
    plain.write_text(json.dumps([{"content": "hi"}]), encoding="utf-8")
    code, out, err = run(db, "ingest", str(plain))
    assert code != 0 and "no chat export" in out + err and "JSONL" in out + err
    assert sniff(b'[{"mapping": {}}]') == "chatgpt" and sniff(b"not json") is None
    bad_zip = tmp_path / "x.zip"
    bad_zip.write_bytes(b"PK\x03\x04garbage")
    code, out, err = run(db, "ingest", str(bad_zip))
    assert code != 0 and "zip" in out + err
    claude = tmp_path / "claude.json"
    claude.write_text(json.dumps(claude_export()), encoding="utf-8")
    code, out, err = run(db, "ingest", str(claude), "--format", "chatgpt")
    assert code != 0 and "--format claude" in out + err
    assert _texts(db) == []


def test_every_problem_has_its_place_and_the_rest_is_read() -> None:
    """Dirty exports: a conversation that is not an object, a message that is not one, a
    message without an id, control characters and zero-width spaces in the text."""
    data = claude_export()
    data[0]["chat_messages"] += [
        "oops",
        {"sender": "human", "created_at": "2024-06-02T10:00:00Z", "text": "no uuid"},
        {
            "uuid": "m9",
            "sender": "human",
            "created_at": "2024-06-02T10:01:00Z",
            "text": "Zero\u200bwidth and a bell\x07.",
        },
    ]
    parsed = parse_export(json.dumps([*data, 7]).encode(), "claude", user="Maya")
    assert [p.where for p in parsed.problems] == [
        "conversation 1 ('Moving flats') message 4",
        "conversation 1 ('Moving flats') message 5",
        "conversation 2",
    ]
    assert [e["speaker"] for e in parsed.episodes] == ["Maya", "assistant", "Maya"]


def test_a_dry_run_says_what_an_import_would_do_and_writes_nothing(
    db: Path, tmp_path: Path
) -> None:
    src = tmp_path / "conversations.json"
    src.write_text(json.dumps(chatgpt_export()), encoding="utf-8")
    code, out, _ = run(db, "ingest", str(src), "--dry-run", "--json")
    assert code == 0 and not db.exists()  # not even an empty vault is left behind
    preview = json.loads(out)
    assert (preview["would_write"], preview["already_here"], len(preview["problems"])) == (5, 0, 2)
    assert preview["left_out"]["calls to a tool"] == 1

    assert run(db, "ingest", str(src), "--skip-invalid")[0] == 0
    code, out, _ = run(db, "ingest", str(src), "--dry-run", "--json")
    assert (json.loads(out)["would_write"], json.loads(out)["already_here"]) == (0, 5)
    assert len(_texts(db)) == 5
