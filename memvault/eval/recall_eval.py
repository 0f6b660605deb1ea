"""``memvault eval recall``: replay conversations into a fresh vault and rank turns.

Each conv_id is its own namespace; every turn is an episode (occurred at its session time,
external id = turn_id, session = session_id), written session by session with the vault's
clock at that session's time. Each question is recalled in its namespace with ``now`` =
question_date when given, else the conversation's last session time. A fact hit counts
through its source turns. recall@k = |gold ∩ top-k| / |gold|, averaged per category.
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

import numpy as np

from memvault.errors import InvalidBatchError, InvalidInputError, Problem
from memvault.eval.baselines import SYSTEMS, Turns
from memvault.eval.dirty import ALIAS, askable_questions, usable_turns
from memvault.interop.jsonl import parse_session_time, turn_to_episode
from memvault.kg.model import Episode
from memvault.vault import MemVault

ADVERSARIAL = "adversarial"


@dataclass
class EvalReport:
    k: int
    conversations: int = 0
    turns: int = 0
    questions: int = 0
    scored: int = 0
    per_category: dict[str, dict[str, float]] = field(default_factory=dict)
    overall: float | None = None  # non-adversarial questions with evidence
    overall_all: float | None = None
    ingest_s: float = 0.0
    recall_s: float = 0.0
    dreamed: bool = False
    skipped: int = 0  # turns with no usable text: not ingested, counted, listed
    skipped_reasons: dict[str, int] = field(default_factory=dict)
    skipped_turns: list[dict[str, str]] = field(default_factory=list)  # the first 50
    # questions recall would refuse (empty, a pasted document): not asked, counted, listed
    skipped_questions: list[dict[str, str]] = field(default_factory=list)  # every one
    undated_sessions: int = 0  # placed after the session before them in the file
    # a turn id seen again in its conversation (a session replayed at another date): the same
    # text is not ingested twice; another text is kept as its own memory under the same id
    repeated: dict[str, int] = field(default_factory=dict)  # same_text | other_text → count
    repeated_turns: list[dict[str, str]] = field(default_factory=list)  # the first 50
    # with ``baselines``: BM25, cosine and their fusion on the same stored turns, scored alike
    # (name → per_category, overall, overall_all); they read every turn, memvault as of then
    baselines: dict[str, dict[str, Any]] = field(default_factory=dict)
    below_baselines: list[str] = field(default_factory=list)  # categories a baseline beats
    extra: dict[str, Any] = field(default_factory=dict)


def read_jsonl(
    path: str | Path,
    required: tuple[str, ...],
    check: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Every row of a contract file, or every problem of it (``path:line``) at once.
    ``check`` raises ValueError for a row that parses but cannot be used."""
    rows: list[dict[str, Any]] = []
    problems: list[Problem] = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror}", field="file") from exc
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{path} is not UTF-8 (byte {exc.start})", field="file") from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(f"{path}:{number}", f"not JSON: {exc.msg}"))
            continue
        except RecursionError:
            problems.append(Problem(f"{path}:{number}", "JSON nested too deeply to read"))
            continue
        if not isinstance(row, dict):
            problems.append(Problem(f"{path}:{number}", "must be a JSON object"))
            continue
        missing = [key for key in required if key not in row]
        if missing:
            problems.append(Problem(f"{path}:{number}", f"missing {', '.join(missing)}"))
            continue
        try:
            if check is not None:
                check(row)
        except ValueError as exc:
            problems.append(Problem(f"{path}:{number}", str(exc)))
            continue
        row["_line"] = number
        rows.append(row)
    if problems:
        raise InvalidBatchError(problems, what=str(path))
    return rows


def namespace_for(conv_id: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_.:@-]", "_", str(conv_id)).lstrip("_.:@-")
    return (cleaned or "conv")[:128]


def read_turns(path: str | Path) -> list[dict[str, Any]]:
    """A turns file of the evaluation contract, every row checked (memvault.eval)."""
    return read_jsonl(path, ("conv_id", "session_id", "turn_id", "text"), _check_turn)


def _check_turn(row: dict[str, Any]) -> None:
    row["_episode"] = turn_to_episode(row)  # a malformed date is a problem of the file


def _dated(
    episodes: list[dict[str, Any]], after: datetime | None
) -> tuple[list[dict[str, Any]], bool]:
    """A session with no date happens one minute after the session before it in the file
    (or on 2000-01-01 when nothing before it has a date); turns missing a date in a dated
    session take the session's."""
    known = [e["occurred_at"] for e in episodes if e.get("occurred_at")]
    if len(known) == len(episodes):
        return episodes, False
    if known:  # some turns of the session carry its date
        when = min(known)
    else:
        when = after + timedelta(minutes=1) if after else datetime(2000, 1, 1, tzinfo=UTC)
    return [{**e, "occurred_at": e.get("occurred_at") or when} for e in episodes], True


def _check_question(row: dict[str, Any]) -> None:
    if row.get("question_date"):
        row["_now"] = parse_session_time(str(row["question_date"]))


def _sessions(
    turns: list[dict[str, Any]], report: EvalReport | None = None
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(conv_id, the episodes of one session) in the order sessions happened."""
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in turns:
        grouped[(str(row["conv_id"]), str(row["session_id"]))].append(row["_episode"])
    last: dict[str, datetime] = {}
    for (conv, session), episodes in list(grouped.items()):  # file order
        dated, placed = _dated(episodes, last.get(conv))
        grouped[(conv, session)] = dated
        last[conv] = max(e["occurred_at"] for e in dated)
        if placed and report is not None:
            report.undated_sessions += 1
    order = sorted(grouped, key=lambda key: (key[0], grouped[key][0]["occurred_at"]))
    for key in order:
        yield key[0], grouped[key]


def ingest_turns(
    vault: MemVault,
    turns: list[dict[str, Any]],
    on_progress: Callable[[int], None] | None = None,
    report: EvalReport | None = None,
) -> dict[str, Any]:
    """Write every conversation's turns (their vectors deferred, as a bulk load is, unless
    ``defer_vectors`` is ``never``), then wait until each has its vectors: questions are
    asked of whole vaults."""
    last_time: dict[str, Any] = {}
    defer = vault.settings.defer_vectors != "never"
    for conv_id, episodes in _sessions(turns, report):
        ns = namespace_for(conv_id)
        when = max(e["occurred_at"] for e in episodes)
        vault.write_many(episodes, namespace=ns, now=when, defer_vectors=defer)
        last_time[conv_id] = max(when, last_time.get(conv_id, when))
        if on_progress:
            on_progress(len(episodes))
    for conv_id in last_time:
        vault.wait_for_vectors(namespace=namespace_for(conv_id))
        vault.store.prepare_search(namespace_for(conv_id))  # indexes built before questions
    return last_time


def ranked_turns(vault: MemVault, ns: str, question: str, k: int, now: Any) -> list[str]:
    """Up to k distinct turn ids in rank order (facts count through their source turns; a
    repeated id's other text counts as that id)."""
    hits = vault.recall(question, namespace=ns, k=min(3 * k, 1000), now=now)
    source_ids = [i for h in hits for i in h.source_episode_ids]
    external = {e.id: e.external_id for e in vault.store.get_episodes(ns, source_ids)}
    ranked: list[str] = []
    for episode_id in source_ids:
        turn = (external.get(episode_id) or "").split(ALIAS)[0]
        if turn and turn not in ranked:
            ranked.append(turn)
        if len(ranked) == k:
            break
    return ranked


def run_recall_eval(
    vault: MemVault,
    turns_path: str | Path,
    questions_path: str | Path,
    *,
    k: int,
    out: IO[str] | None,
    after_ingest: Callable[[MemVault, dict[str, datetime]], None] | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
    baselines: bool = False,
) -> EvalReport:
    """``baselines``: also rank every question with BM25, cosine and their fusion over the
    same stored turns (memvault.eval.baselines) and score them in ``report.baselines``."""
    turns = read_turns(turns_path)
    questions = read_jsonl(questions_path, ("conv_id", "question_id", "question"), _check_question)
    known = {str(t["conv_id"]) for t in turns}
    orphans = [
        Problem(f"question {q['question_id']}", f"conversation {q['conv_id']!r} has no turns")
        for q in questions
        if str(q["conv_id"]) not in known
    ]
    if orphans:
        raise InvalidBatchError(orphans, what=str(questions_path))
    report = EvalReport(k=k, turns=len(turns), questions=len(questions))
    questions = askable_questions(questions, questions_path, report)
    turns = usable_turns(turns, turns_path, report, vault.settings.max_content_chars)
    started = time.perf_counter()
    last_time = ingest_turns(
        vault,
        turns,
        (lambda n: on_progress("ingest", n, len(turns))) if on_progress else None,
        report,
    )
    report.conversations = len(last_time)
    if after_ingest is not None:
        after_ingest(vault, {namespace_for(c): t for c, t in last_time.items()})
        report.dreamed = True
    report.ingest_s = time.perf_counter() - started
    started = time.perf_counter()
    scores: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    read: dict[str, Turns] = {}
    for q in questions:
        conv = str(q["conv_id"])
        now = q.get("_now") or last_time[conv]
        ranked = {"memvault": ranked_turns(vault, namespace_for(conv), q["question"], k, now)}
        if out is not None:
            out.write(
                json.dumps({"question_id": q["question_id"], "ranked": ranked["memvault"]}) + "\n"
            )
        if baselines:
            if conv not in read:
                read[conv] = stored_turns(vault, namespace_for(conv))
            query_vector = vault.c.embedder.embed([q["question"]])[0]
            ranked |= read[conv].ranked(q["question"], query_vector, k)
        gold = set(q.get("evidence_turn_ids") or [])
        for system, found in ranked.items():
            if gold:
                hit = len(gold & set(found)) / len(gold)
                scores[system][q.get("category_name") or "all"].append(hit)
        if on_progress:
            on_progress("recall", 1, len(questions))
    report.recall_s = time.perf_counter() - started
    summary = _summarise(scores["memvault"], k)
    report.per_category, report.overall, report.overall_all = (
        summary["per_category"],
        summary["overall"],
        summary["overall_all"],
    )
    report.scored = summary["scored"]
    report.baselines = {name: _summarise(scores[name], k) for name in SYSTEMS if baselines}
    report.below_baselines = _below(report)
    return report


def _below(report: EvalReport) -> list[str]:
    """The categories (and ``overall``) where some baseline's recall is above memvault's."""
    key = f"recall@{report.k}"
    mine = {name: row[key] for name, row in report.per_category.items()}
    mine["overall"] = report.overall if report.overall is not None else 1.0
    out = []
    for name, value in mine.items():
        theirs = [
            b["overall"] if name == "overall" else b["per_category"].get(name, {}).get(key)
            for b in report.baselines.values()
        ]
        if any(t is not None and t > value for t in theirs):
            out.append(name)
    return out


def stored_turns(vault: MemVault, namespace: str) -> Turns:
    """A conversation's stored turns for the baselines, in the order they were said: the text
    memvault indexed and the vector it stored (none is computed again)."""
    episodes = sorted(
        (
            r
            for r in vault.store.iter_records(namespace)
            if isinstance(r, Episode) and r.external_id
        ),
        key=lambda e: (e.occurred_at, e.position or 0),
    )
    vectors = vault.store.get_vectors(namespace, "episode", [e.id for e in episodes])
    missing = np.zeros(vault.c.embedder.dim, dtype=np.float32)
    matrix = np.stack([vectors.get(e.id, missing) for e in episodes]) if episodes else missing[:0]
    return Turns(
        [str(e.external_id).split(ALIAS)[0] for e in episodes],
        [e.content for e in episodes],
        matrix,
    )


def _summarise(scores: dict[str, list[float]], k: int) -> dict[str, Any]:
    everything = [s for v in scores.values() for s in v]
    core = [s for name, v in scores.items() if name != ADVERSARIAL for s in v]
    return {
        "per_category": {
            name: {"n": len(v), f"recall@{k}": round(sum(v) / len(v), 4)}
            for name, v in sorted(scores.items())
        },
        "scored": len(everything),
        "overall": round(sum(core) / len(core), 4) if core else None,
        "overall_all": round(sum(everything) / len(everything), 4) if everything else None,
    }


def dream_each(vault: MemVault, last_times: dict[str, datetime]) -> dict[str, Any]:
    """One dream cycle (apply, default policy) per namespace at its last session time; the
    gate is a scheduling rule, so the evaluation forces it."""
    out: dict[str, Any] = {}
    for ns, when in sorted(last_times.items()):
        result = vault.dream(namespace=ns, apply=True, force=True, now=when)
        out[ns] = {
            "run_id": result.run_id,
            "counts": result.report.get("counts", {}),
            "applied": result.applied.applied if result.applied else 0,
            "to_review": result.report.get("to_review", 0),
        }
    return out
