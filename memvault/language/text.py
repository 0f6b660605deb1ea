"""Plain-text helpers with no knowledge of memvault's records."""

from __future__ import annotations

import re

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


CHUNK_CHARS, CHUNK_OVERLAP, MAX_CHUNKS = 600, 100, 32


def tail_chunks(
    text: str,
    size: int = CHUNK_CHARS,
    overlap: int = CHUNK_OVERLAP,
    limit: int = MAX_CHUNKS,
    *,
    read: int | None = None,
) -> list[str]:
    """The parts of a long text its embedder does not read: windows of at most ``size``
    characters after the first ``read`` (what the embedder's one vector reads of the text,
    whitespace runs counted as one space; unknown: ``size``), each starting ``overlap``
    characters before the previous one ended, cut at word boundaries; at most ``limit`` (the
    rest of a pasted book is left to the keyword index). A text within ``size``, or within
    what the embedder reads, has none."""
    text = " ".join(text.split())
    overlap = min(overlap, size // 6)
    seen = size if read is None else read
    if size <= 0 or len(text) <= seen:
        return []
    out: list[str] = []
    start = max(seen - overlap, 0)
    while start < len(text) and len(out) < limit:
        if start > 0 and text[start - 1] != " ":  # begin at the next word
            nxt = text.find(" ", start)
            start = nxt + 1 if 0 <= nxt < start + overlap else start
        end = min(start + size, len(text))
        if end < len(text):
            cut = text.rfind(" ", start + size // 2, end)
            end = cut if cut > 0 else end
        piece = text[start:end].strip()
        if piece:
            out.append(piece)
        if end >= len(text):
            break
        start = max(end - overlap, start + 1)
    return out


# Abbreviations that stand before a name ("St. Louis", "Mt. Rainier", "Dr. Patel"): their
# period ends no sentence, and a reader that stops at periods took "St" for a place of its own
# ("I moved to St. Louis" lived in "St"). Not those after a name ("Jr."): they end sentences.
_BEFORE_A_NAME = re.compile(
    r"\b(St|Ste|Mt|Ft|Pt|Dr|Mr|Mrs|Ms|Mx|Prof|Rev|Capt|Lt|Sgt|Col|Gov|Sen)\.(?=[ \t]+[A-Z])"
)


def join_abbreviations(text: str) -> str:
    """``text`` with the period after such an abbreviation removed ("St Louis")."""
    return _BEFORE_A_NAME.sub(r"\1", text)


# "I live in Denver and work as a pharmacist": the second clause has no subject of its own
# and shares the first's. Only a verb in its plain form, which agrees with "I" ("works" after
# "and" has another subject: "my sister lives in Rome and works at Fiat"), never one that is
# also a noun or a preposition ("the self-acceptance and love theme", "but like I said"),
# and only after an "I" in the same sentence with no other subject between (he, she, they,
# my sister …).
_SHARED = re.compile(
    r"\b(and|but)\s+(?=(?:also |now |still |then |just |really )?"
    r"(?:work|live|moved|relocated|started|joined|enjoy|adore|hate|dislike|prefer)\b)"
)
# "to learn something new and work as a team": the clause runs on from an infinitive, not
# from "I" ("moved to Boulder and started at Acme" goes to a name)
_INFINITIVE = re.compile(r"\bto\s+(?!the\b|an?\b)[a-z]")
_OTHER_SUBJECT = re.compile(r"\b(?:he|she|they|we|you|it|my|our|his|her|their)\b", re.IGNORECASE)
_SENTENCES = re.compile(r"[^.!?\n]+[.!?\n]*")
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")


def sentences(text: str) -> list[str]:
    """``text``'s sentences, each with its end mark: a line break ends one too (a pasted list
    or script is read line by line)."""
    return _SENTENCE.findall(text)


def shared_subject(text: str) -> str:
    """``text`` with "I" said again where a first-person clause's verb runs on after "and" or
    "but" ("… and I work as a pharmacist"), so that what is read of one clause is read of
    the next."""

    def sentence(m: re.Match[str]) -> str:
        s = m.group(0)
        out, last = [], 0
        for c in _SHARED.finditer(s):
            head = s[: c.start()]
            at = max((i.end() for i in re.finditer(r"\bI\b", head)), default=-1)
            between = head[at:] if at >= 0 else ""
            if at >= 0 and not _OTHER_SUBJECT.search(between) and not _INFINITIVE.search(between):
                out.append(s[last : c.end()] + "I ")
                last = c.end()
        return "".join(out) + s[last:]

    return _SENTENCES.sub(sentence, text)
