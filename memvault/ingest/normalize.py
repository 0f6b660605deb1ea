"""Content normalisation: what every memory's text goes through before it is stored.

- bytes must be UTF-8 (the error names the byte offset);
- Unicode NFC; CRLF/CR → LF; control characters other than newline and tab removed;
- runs of spaces and tabs → one space, lines stripped, 3+ blank lines → one blank line;
- empty after that → error;
- longer than the limit → cut at the last word boundary before it and marked with
  ``TRUNCATION_MARKER`` followed by how many characters were cut.
"""

from __future__ import annotations

import re
import unicodedata

from memvault.errors import InvalidInputError

TRUNCATION_MARKER = " [… truncated"
QUERY_MAX_CHARS = 4000  # a question, not a document (the REST schema's limit too)
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200b\u3000]+")
_BLANKS = re.compile(r"\n{3,}")
# Unicode's control characters (category Cc) but newline and tab
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def decode(raw: bytes, *, field: str = "content") -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            f"not valid UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 1]!r})",
            field=field,
            hint="re-encode the text as UTF-8",
        ) from exc


def _plain(text: str) -> bool:
    """Nothing for ``_SPACES`` to change: ASCII without tabs or two spaces in a row (most
    text; these checks run at C speed, the pattern does not)."""
    return text.isascii() and "\t" not in text and "  " not in text


def readable(text: str) -> bool:
    """Does ``text`` hold anything to read: more than whitespace, control and format
    characters (zero-width spaces and joiners, word joiners…)."""
    return any(unicodedata.category(c) not in ("Cf", "Cc") and not c.isspace() for c in text)


def normalize_content(raw: str | bytes, *, limit: int, field: str = "content") -> tuple[str, bool]:
    """The stored form of ``raw`` and whether it was truncated."""
    text = decode(raw, field=field) if isinstance(raw, bytes) else raw
    if not isinstance(text, str):
        raise InvalidInputError(f"must be text, got {type(text).__name__}", field=field)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            "contains unpaired surrogate characters", field=field, hint="send valid Unicode"
        ) from exc
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROLS.sub("", text)
    text = text.replace("\ufeff", "")  # a byte-order mark is never content
    if not _plain(text):
        text = _SPACES.sub(" ", text)
    lines = [line.strip() for line in text.split("\n")]
    text = _BLANKS.sub("\n\n", "\n".join(lines)).strip()
    if not readable(text):
        raise InvalidInputError(
            "is empty (after removing whitespace, control and zero-width characters)",
            field=field,
        )
    if len(text) <= limit:
        return text, False
    cut = text.rfind(" ", int(limit * 0.9), limit)
    cut = cut if cut > 0 else limit
    return f"{text[:cut]}{TRUNCATION_MARKER} {len(text) - cut} chars]", True


def normalize_query(query: object, *, field: str = "query") -> str:
    """A question as recall reads it, on every surface: cleaned as content is (control and
    zero-width characters out, spaces collapsed). Refused, saying what to fix, when nothing
    readable is left or when it is longer than ``QUERY_MAX_CHARS`` (a pasted document, read
    at the cost of seconds per recall and stored in the recall log)."""
    if not isinstance(query, str):
        raise InvalidInputError(f"must be text, got {type(query).__name__}", field=field)
    if len(query) > QUERY_MAX_CHARS:
        raise InvalidInputError(
            f"is {len(query):,} characters long; at most {QUERY_MAX_CHARS:,}",
            field=field,
            hint="ask in fewer words: a run of six or so words quoted from a memory finds it",
        )
    try:
        text, _ = normalize_content(query, limit=QUERY_MAX_CHARS, field=field)
    except InvalidInputError as exc:
        raise InvalidInputError(
            str(exc).removeprefix(f"{field}: "), field=field, hint="ask something"
        ) from exc
    return text
