"""A chat export is someone's years of data in a format its vendor changes without notice:
whatever JSON it holds, reading it raises nothing but a clear refusal of the whole file (the
other vendor's export) — what cannot be read is a problem with its place, the rest is read."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memvault.errors import InvalidInputError
from memvault.interop.chat_exports import parse_export, sniff

KEYS = ["mapping", "current_node", "message", "parent", "id", "author", "role", "content",
        "content_type", "parts", "create_time", "recipient", "metadata", "title",
        "chat_messages", "sender", "uuid", "text", "created_at", "type", "name",
        "conversation_id", "is_visually_hidden_from_conversation"]  # fmt: skip
VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=8),
    st.sampled_from(["user", "assistant", "human", "system", "tool", "text", "all", "n1",
                     "multimodal_text", "audio_transcription", "2024-06-02T09:00:05Z"]),
)  # fmt: skip
JSON: st.SearchStrategy[Any] = st.recursive(
    VALUES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(KEYS), inner, max_size=6),
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(JSON, min_size=1, max_size=4), st.sampled_from(["chatgpt", "claude"]))
def test_any_json_list_is_read_or_listed_never_raised(data: list[Any], fmt: str) -> None:
    raw = json.dumps(data).encode()
    found = sniff(raw)
    try:
        parsed = parse_export(raw, fmt, user="Maya")
    except InvalidInputError as exc:
        assert found not in (None, fmt) and f"--format {found}" in str(exc)
        return
    assert len(parsed.episodes) == len(parsed.episode_labels)
    for item in parsed.episodes:
        assert item["content"].strip() and item["speaker"] in ("Maya", "assistant")
