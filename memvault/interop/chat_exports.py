"""Chat histories exported from ChatGPT and Claude, read as memories (docs/interop.md).

- **ChatGPT** ("Settings → Data controls → Export data"): the archive's ``conversations.json``
  (or the .zip itself), a list of conversations, each a tree of messages (``mapping``). The
  branch read is the one the conversation shows (from ``current_node`` up to the root); a
  conversation without one falls back to every message in time order. Read: the user's and
  the assistant's text (``text`` and ``multimodal_text``: the text parts and what voice
  messages said, images and audio left out). Left out: system and tool messages, messages
  sent to a tool, hidden ones, the assistant's code, browsing and reasoning (not what was
  said to the person), and messages with nothing to read (only spaces, control or
  zero-width characters).
- **Claude** ("Settings → Privacy → Export data"): ``conversations.json``, a list of
  conversations with ``chat_messages`` (``sender`` human / assistant; the text blocks of
  ``content``, else ``text``).

Each message becomes one episode: its text, the speaker (``user`` unless a name is given, or
``assistant``), the conversation as the session, the message's time (the conversation's when
the message has none), the external id ``chatgpt:<message id>`` / ``claude:<message uuid>``
(a second import of the same export writes nothing again, and a forgotten message stays
forgotten), and the conversation's title in the metadata. A conversation or message that
cannot be read (no messages, no readable time, a field of the wrong kind) is a problem with
its place ("conversation 12 ('Trip to Porto') message 4: no readable time"): the ingest lists
every one, and writes nothing, or the rest with ``--skip-invalid``.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from memvault.clock import DateRangeError, ensure_utc
from memvault.errors import InvalidInputError, Problem
from memvault.ingest.normalize import readable
from memvault.interop.jsonl import ParsedLines

FORMATS = ("chatgpt", "claude")
_SAID = {"text", "multimodal_text"}  # ChatGPT content types that are words said to the person
_ZIP_MAX = 2_000_000_000  # a conversations.json larger than this is not read into memory


def sniff(raw: bytes) -> str | None:
    """``chatgpt`` or ``claude`` when ``raw`` is such an export (a JSON array of their
    conversations, or a .zip holding one), else None."""
    try:
        data = _conversations(raw)
    except InvalidInputError:
        return None
    return _kind(data) if data is not None else None


def parse_export(raw: bytes, fmt: str, *, user: str | None = None) -> ParsedLines:
    """The messages of an export as write items, with a label and a problem for each thing
    that cannot be read; ``user``: the speaker name of the person's own messages."""
    data = _conversations(raw)
    if data is None:
        raise InvalidInputError(
            f"is not a {fmt} export: expected a JSON list of conversations (the export's "
            "conversations.json, or its .zip)",
            field="file",
        )
    found = _kind(data)
    if found is not None and found != fmt:
        raise InvalidInputError(
            f"is a {found} export, not a {fmt} one", field="--format", hint=f"--format {found}"
        )
    out = ParsedLines()
    read = _chatgpt if fmt == "chatgpt" else _claude
    for n, conv in enumerate(data, start=1):
        where = f"conversation {n}"
        if not isinstance(conv, dict):
            out.problems.append(Problem(where, "is not an object"))
            continue
        title = conv.get("title") if fmt == "chatgpt" else conv.get("name")
        if isinstance(title, str) and title.strip():
            where += f" ({_clip(title)!r})"
        try:
            for m, item in read(conv):
                if isinstance(item, _LeftOut):
                    out.left_out[str(item)] = out.left_out.get(str(item), 0) + 1
                    continue
                if isinstance(item, str):
                    out.problems.append(Problem(f"{where} message {m}", item))
                    continue
                if item["speaker"] == "user" and user:
                    item["speaker"] = user
                if isinstance(title, str) and title.strip():
                    item["metadata"]["conversation"] = title.strip()[:200]
                out.episodes.append(item)
                out.episode_labels.append(f"{where} message {m}")
        except _Unreadable as exc:
            out.problems.append(Problem(where, str(exc)))
    return out


class _Unreadable(ValueError):
    """A conversation whose messages cannot be read at all."""


class _LeftOut(str):
    """Why a message is left out on purpose (not a problem: counted, not listed)."""


def _conversations(raw: bytes) -> list[Any] | None:
    if raw[:2] == b"PK":
        raw = _from_zip(raw)
    head = raw.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if head != b"[":
        return None
    try:
        data = json.loads(raw.decode("utf-8-sig", errors="replace"))
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, list) else None


def _from_zip(raw: bytes) -> bytes:
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            names = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == "conversations.json"]
            if not names:
                raise InvalidInputError(
                    "is a .zip without a conversations.json",
                    field="file",
                    hint="the archive ChatGPT or Claude sends when you export your data",
                )
            info = archive.getinfo(min(names, key=len))
            if info.file_size > _ZIP_MAX:
                raise InvalidInputError(
                    f"its conversations.json is {info.file_size:,} bytes",
                    field="file",
                    hint="unzip it and split the list, or import it in parts",
                )
            return archive.read(info)
    except zipfile.BadZipFile as exc:
        raise InvalidInputError(f"is not a readable .zip ({exc})", field="file") from None


def _kind(data: list[Any]) -> str | None:
    first = next((c for c in data if isinstance(c, dict)), None)
    if first is None:
        return None
    if "mapping" in first:
        return "chatgpt"
    if "chat_messages" in first:
        return "claude"
    return None


def _clip(text: str, n: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _time(value: Any) -> datetime | None:
    """An epoch (seconds, ChatGPT) or an ISO time (Claude), or None when unreadable or out
    of the range memvault holds."""
    try:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return ensure_utc(datetime.fromtimestamp(value, UTC))
        if isinstance(value, str) and value.strip():
            return ensure_utc(datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
    except (OverflowError, OSError, ValueError, DateRangeError):
        return None
    return None


def _message(
    text: str, speaker: str, session: Any, when: datetime | None, msg_id: Any, source: str
) -> dict[str, Any] | str:
    """The write item of a message, or what keeps it from being one."""
    if when is None:
        return "no readable time (nor the conversation's)"
    if not isinstance(msg_id, str) or not msg_id:
        return "has no id" if source == "chatgpt" else "has no uuid"
    return _item(text, speaker, session, when, f"{source}:{msg_id}")


def _item(text: str, speaker: str, session: Any, when: datetime, external: str) -> dict[str, Any]:
    return {
        "content": text,
        "speaker": speaker,
        "session_id": str(session)[:256] if session else None,
        "occurred_at": when.isoformat(),
        "external_id": external[:256],
        "metadata": {"source": external.split(":", 1)[0]},
    }


# -- ChatGPT ------------------------------------------------------------------------------------


def _chatgpt(conv: dict[str, Any]) -> Iterator[tuple[int, dict[str, Any] | str]]:
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict) or not mapping:
        raise _Unreadable("has no messages (no 'mapping')")
    session = conv.get("conversation_id") or conv.get("id")
    started = _time(conv.get("create_time"))
    branch = _branch(mapping, conv.get("current_node"))
    every = sum(
        isinstance(n, dict) and isinstance(n.get("message"), dict) for n in mapping.values()
    )
    for _ in range(every - len(branch)):
        yield 0, _LeftOut("earlier versions of edited or regenerated messages")
    for m, message in enumerate(branch, start=1):
        said = _chatgpt_text(message)
        if isinstance(said, str):
            yield m, _LeftOut(said)
            continue
        role, text = said
        when = _time(message.get("create_time")) or started
        yield m, _message(text, role, session, when, message.get("id"), "chatgpt")


def _branch(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    """The messages of the branch the conversation shows, oldest first; without a readable
    one, every message in time order."""
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    node = mapping.get(current) if isinstance(current, str) else None
    while isinstance(node, dict) and len(seen) < len(mapping):
        key = node.get("id")
        if not isinstance(key, str) or key in seen:
            break
        seen.add(key)
        if isinstance(node.get("message"), dict):
            chain.append(node["message"])
        parent = node.get("parent")
        node = mapping.get(parent) if isinstance(parent, str) else None
    if chain:
        return chain[::-1]
    messages = [n["message"] for n in mapping.values()
                if isinstance(n, dict) and isinstance(n.get("message"), dict)]  # fmt: skip
    return sorted(messages, key=lambda msg: _time(msg.get("create_time")) or datetime.max.replace(
        tzinfo=UTC))  # fmt: skip


def _chatgpt_text(message: dict[str, Any]) -> tuple[str, str] | str:
    """(role, text), or why the message is left out."""
    author = message.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    if role not in ("user", "assistant"):
        return "system or tool messages"
    meta = message.get("metadata")
    if isinstance(meta, dict) and meta.get("is_visually_hidden_from_conversation"):
        return "hidden messages"
    if message.get("recipient", "all") != "all":
        return "calls to a tool"  # not words to the person
    content = message.get("content")
    if not isinstance(content, dict) or content.get("content_type") not in _SAID:
        return "code, browsing or reasoning"
    parts = content.get("parts")
    said = [_part_text(p) for p in parts] if isinstance(parts, list) else []
    text = "\n".join(p for p in said if p)
    return (role, text) if readable(text) else _NOTHING


_NOTHING = "messages with nothing to read"


def _part_text(part: Any) -> str:
    """A text part, or what a voice message said (its ``audio_transcription``)."""
    if isinstance(part, str):
        return part
    if isinstance(part, dict) and part.get("content_type") == "audio_transcription":
        text = part.get("text")
        return text if isinstance(text, str) else ""
    return ""


# -- Claude -------------------------------------------------------------------------------------


def _claude(conv: dict[str, Any]) -> Iterator[tuple[int, dict[str, Any] | str]]:
    messages = conv.get("chat_messages")
    if not isinstance(messages, list):
        raise _Unreadable("has no messages (no 'chat_messages' list)")
    session = conv.get("uuid")
    started = _time(conv.get("created_at"))
    for m, message in enumerate(messages, start=1):
        if not isinstance(message, dict):
            yield m, "is not an object"
            continue
        for key in ("attachments", "files"):  # documents attached: not what was said
            attached = message.get(key)
            if isinstance(attached, list) and attached:
                for _ in attached:
                    yield m, _LeftOut("attached files (their text is not read)")
        sender = message.get("sender")
        if sender not in ("human", "assistant"):
            yield m, _LeftOut("system or tool messages")
            continue
        text = _claude_text(message)
        if not readable(text):
            yield m, _LeftOut(_NOTHING)
            continue
        when = _time(message.get("created_at")) or started
        speaker = "user" if sender == "human" else "assistant"
        yield m, _message(text, speaker, session, when, message.get("uuid"), "claude")


def _claude_text(message: dict[str, Any]) -> str:
    blocks = message.get("content")
    if isinstance(blocks, list):
        texts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        joined = "\n".join(t for t in texts if isinstance(t, str) and t.strip())
        if joined:
            return joined
    text = message.get("text")
    return text if isinstance(text, str) else ""
