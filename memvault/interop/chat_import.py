"""One import of a ChatGPT or Claude export into a namespace, for every surface that is no
terminal (the REST route ``POST /v1/ns/{namespace}/imports/chat-export``; the CLI's
``memvault ingest`` reads the same export with the same parser and checks): read it
(memvault.interop.chat_exports), check every message, then preview or write.

All or nothing unless ``skip_invalid``: a problem anywhere refuses the whole export with
every problem listed in file order; with ``skip_invalid`` the rest is written and the
problems are reported. A message already imported (its external id) is not written again,
a forgotten one stays forgotten; a dry run writes nothing and says what it would do."""

from __future__ import annotations

import re
from typing import Any

from memvault.errors import InvalidBatchError, InvalidInputError, Problem
from memvault.ingest.inputs import parse_facts
from memvault.interop.chat_exports import FORMATS, parse_export, sniff
from memvault.interop.jsonl import ParsedLines

_PLACE = re.compile(r"conversation (\d+)(?: \(.*\))?(?: message (\d+))?$")


def line_order(problem: Problem) -> tuple[int, int, str]:
    """Input order: "line 12"; a chat export's "conversation 3 ('Title') message 4"."""
    place = _PLACE.match(problem.where)
    if place:
        return (int(place[1]), int(place[2] or 0), problem.where)
    number = problem.where.rpartition(" ")[2]
    return (int(number) if number.isdigit() else 0, 0, problem.where)


def drop_invalid(vault: Any, parsed: ParsedLines, ns: str) -> list[Problem]:
    """Check item by item, keep the valid ones, and return the problems of the rest."""
    problems: list[Problem] = vault.writer.check(
        ns, parsed.episodes, parsed.episode_labels, now=vault.now()
    )
    problems += parse_facts(parsed.facts, parsed.fact_labels, now=vault.now())[1]
    bad = {p.where for p in problems}
    keep = [i for i, label in enumerate(parsed.episode_labels) if label not in bad]
    parsed.episodes = [parsed.episodes[i] for i in keep]
    parsed.episode_labels = [parsed.episode_labels[i] for i in keep]
    keep = [i for i, label in enumerate(parsed.fact_labels) if label not in bad]
    parsed.facts = [parsed.facts[i] for i in keep]
    parsed.fact_labels = [parsed.fact_labels[i] for i in keep]
    return problems


def import_chat_export(
    vault: Any,
    raw: bytes,
    *,
    namespace: str | None = None,
    fmt: str | None = None,
    user: str | None = None,
    dry_run: bool = False,
    skip_invalid: bool = False,
    defer_vectors: bool | None = None,
) -> dict[str, Any]:
    """Import ``raw`` (an export's ``conversations.json`` or its .zip); ``fmt``: chatgpt or
    claude (default: read from the data); ``user``: the speaker name of the person's own
    messages. Returns what was (or, dry, would be) written, what was already here, what was
    left out on purpose by why, and the problems skipped."""
    if fmt is not None and fmt not in FORMATS:
        raise InvalidInputError(
            f"unknown export format {fmt!r}", field="format", hint=f"one of {', '.join(FORMATS)}"
        )
    fmt = fmt or sniff(raw)
    if fmt is None:
        raise InvalidInputError(
            "not a ChatGPT or Claude export: expected the JSON list of conversations of "
            "its conversations.json, or the export's .zip",
            field="body",
            hint="send the file as it came in the export (or a part of its list)",
        )
    parsed = parse_export(raw, fmt, user=user)
    ns = vault.ns(namespace)
    problems = sorted(parsed.problems + drop_invalid(vault, parsed, ns), key=line_order)
    ids = [str(e["external_id"]) for e in parsed.episodes if e.get("external_id")]
    known = len(vault.store.episodes_by_external_id(ns, ids)) if ids else 0
    said = {
        "namespace": ns,
        "format": fmt,
        "left_out": parsed.left_out,
        "problems": [{"where": p.where, "message": p.message} for p in problems],
    }
    if dry_run:
        return {"dry_run": True, **said, "would_write": len(parsed.episodes) - known,
                "already_here": known}  # fmt: skip
    if problems and not skip_invalid:
        raise InvalidBatchError(
            problems,
            what="the export",
            hint="fix them, or import with skip_invalid to write the rest and list these",
        )
    result = vault.write_many(
        parsed.episodes,
        namespace=ns,
        labels=parsed.episode_labels,
        defer_vectors=defer_vectors,
    )
    return {
        "dry_run": False,
        **said,
        "written": result.created,
        "already_here": result.duplicates,
        "forgotten": result.forgotten,
        "truncated": result.truncated,
        "facts_created": result.facts_created,
        "vectors_pending": result.vectors_pending,
    }
