"""Plain-text helpers with no knowledge of memvault's records."""

from __future__ import annotations

ELLIPSIS = "…"


def clip(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters by construction: whole when it fits, else cut at
    the last word boundary in the final fifth before the limit (or at the limit when the text
    has none there) and ended with an ellipsis. Derived records (an attitude's statement, a
    digest, a headline) go through this, so a pasted transcript without punctuation can never
    make one longer than its model allows."""
    text = text.strip()
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    room = limit - len(ELLIPSIS)
    cut = text.rfind(" ", int(room * 0.8), room + 1)
    head = text[: cut if cut > 0 else room].rstrip(" ,;:-")
    return f"{head}{ELLIPSIS}"
