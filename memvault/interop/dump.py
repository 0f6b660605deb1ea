"""A namespace as JSONL: the logical dump, also the backup format.

Line 1 is a header ``{"format": "memvault-dump", "version": 3, "namespace", "embedder",
"vector_text"}`` (``vector_text``: what episode and fact vectors were computed from; dumps
without it embedded the speaker's or subject's name too, and those vectors are recomputed); each
further line is ``{"type": session|entity|episode|mention|fact, "data": {...}}``,
``{"type": "vector", "kind", "id", "b64"}`` (float32, base64) or, from version 2,
``{"type": "fold", "id": memory type, "data": {...}}`` (a type's digest: ``memvault.folds``;
imported with its watermark reset, which only bounds a scan) and, from version 3,
``{"type": "attitude" | "skill", "data": {...}}`` (the persona layers, every version).
Records come in a stable order, so two dumps of the same state are byte-identical. Import
validates every line before writing anything, reuses vectors when the embedder matches and
re-embeds otherwise, and upserts by id in one transaction (importing the same dump twice
changes nothing).
"""

from __future__ import annotations

import base64
import json
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np
from pydantic import BaseModel, ValidationError

from memvault.embed import Embedder
from memvault.errors import InvalidBatchError, InvalidInputError, Problem
from memvault.folds import cell_id, parse_cell_id
from memvault.ingest.chunking import vector_texts
from memvault.kg import forgotten
from memvault.kg.model import (
    Entity,
    Episode,
    Fact,
    Mention,
    Session,
)
from memvault.kg.persona import LIVE, Attitude, Skill
from memvault.kg.store import Batch, Doc, Store, VectorRecord
from memvault.kg.vocabulary import ENTITY_TYPE, EntityTypeDef
from memvault.language.text import CHUNK_CHARS

FORMAT = "memvault-dump"
VERSION = 4
READS = (1, 2, 3, 4)  # version 1 had no fold lines, 2 no persona lines, 3 no entity types
VECTOR_TEXT = "unnamed"  # Episode/Fact.vector_text: without the speaker or subject
FOLD = "fold"  # the document kind memvault.folds keeps (one per memory type)
EMBED_BATCH = 256  # texts per embedder call when a dump's vectors cannot be reused
PERSONA = ("attitude", "skill")  # the persona layers' documents
_MODELS: dict[str, type[BaseModel]] = {
    "session": Session,
    "entity": Entity,
    "episode": Episode,
    "mention": Mention,
    "fact": Fact,
}


@dataclass
class DumpSummary:
    namespace: str
    counts: dict[str, int] = field(default_factory=dict)
    reembedded: int = 0
    forgotten: int = 0  # erased by a forget since the dump was written: left out
    already_here: int = 0  # the same external id written here since under another id


def export_namespace(
    store: Store, namespace: str, out: IO[str], *, embedder_name: str, with_vectors: bool = True
) -> DumpSummary:
    summary = DumpSummary(namespace=namespace)
    counts: Counter[str] = Counter()
    header: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "namespace": namespace,
        "embedder": embedder_name if with_vectors else None,
        "vector_text": VECTOR_TEXT if with_vectors else None,
    }
    out.write(json.dumps(header, sort_keys=True) + "\n")
    vector_ids: dict[str, list[str]] = {"episode": [], "fact": [], "entity": []}
    for record in store.iter_records(namespace):
        kind = _kind_of(record)
        counts[kind] += 1
        if kind in vector_ids:
            vector_ids[kind].append(record.id)  # type: ignore[union-attr]
        out.write(
            json.dumps({"type": kind, "data": record.model_dump(mode="json")}, sort_keys=True)
            + "\n"
        )
    if with_vectors:
        for kind, ids in vector_ids.items():
            vectors = store.get_vectors(namespace, kind, ids)  # type: ignore[arg-type]
            for rid in ids:
                if rid in vectors:
                    counts["vector"] += 1
                    b64 = base64.b64encode(vectors[rid].astype(np.float32).tobytes()).decode()
                    out.write(
                        json.dumps(
                            {"type": "vector", "kind": kind, "id": rid, "b64": b64}, sort_keys=True
                        )
                        + "\n"
                    )
    for doc in sorted(store.list_docs(namespace, FOLD, limit=100_000), key=lambda d: d.id):
        if not doc.body.get("digest") and not doc.body.get("history"):
            continue  # a type never folded into: only a watermark, meaningless elsewhere
        counts["fold"] += 1
        out.write(json.dumps({"type": "fold", "id": doc.id, "data": doc.body}, sort_keys=True))
        out.write("\n")
    for kind in PERSONA:
        for doc in sorted(
            store.list_docs(namespace, kind, status=LIVE, limit=1_000_000), key=lambda d: d.id
        ):
            counts[kind] += 1
            out.write(json.dumps({"type": kind, "data": doc.body}, sort_keys=True) + "\n")
    for doc in sorted(store.list_docs(namespace, ENTITY_TYPE, limit=1000), key=lambda d: d.id):
        counts[ENTITY_TYPE] += 1
        line = {"type": ENTITY_TYPE, "id": doc.id, "data": doc.body}
        out.write(json.dumps(line, sort_keys=True) + "\n")
    summary.counts = dict(counts)
    return summary


def _kind_of(record: BaseModel) -> str:
    for kind, model in _MODELS.items():
        if type(record) is model:
            return kind
    raise TypeError(type(record).__name__)


def _lines(source: IO[str]) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(source, start=1):
        if line.strip():
            yield number, line


def import_namespace(
    store: Store,
    source: IO[str],
    *,
    embedder: Embedder,
    namespace: str | None = None,
    chunk_chars: int = CHUNK_CHARS,
    on_progress: Callable[[int, int], None] | None = None,
) -> DumpSummary:
    """Load a dump; ``namespace`` renames it on the way in. ``on_progress(done, total)``:
    vectors computed so far, when the dump's own cannot be reused."""
    lines = _lines(source)
    first = next(lines, None)
    if first is None:
        raise InvalidInputError("the dump is empty", field="line 1")
    header = _header(*first)
    target = namespace or header["namespace"]
    # Into another namespace, every record gets an id of its own there (derived, so importing
    # the same dump twice still changes nothing): ids are unique across a store, and keeping
    # them would move the records out of the namespace they were exported from.
    rekey = _rekey(target) if target != header.get("namespace") else None
    batch = Batch(namespace=target)
    problems: list[Problem] = []
    vectors: dict[tuple[str, str], np.ndarray] = {}
    for number, line in lines:
        try:
            _load_line(line, target, batch, vectors, rekey)
        except (ValueError, ValidationError, KeyError, TypeError, RecursionError) as exc:
            problems.append(Problem(f"line {number}", _short(exc)))
    if problems:
        raise InvalidBatchError(problems, what="the dump")
    left = _leave_out_forgotten(store, batch)
    here = _already_here(store, batch)
    summary = DumpSummary(
        namespace=target,
        counts={
            "session": len(batch.sessions),
            "entity": len(batch.entities),
            "episode": len(batch.episodes),
            "mention": len(batch.mentions),
            "fact": len(batch.facts),
            "fold": len(batch.docs),
        },
    )
    reuse = header.get("embedder") == embedder.name
    same_text = header.get("vector_text") == VECTOR_TEXT
    texts = vector_texts(embedder, [*batch.episodes, *batch.facts, *batch.entities], chunk_chars)
    missing = [
        t
        for t in texts
        if not reuse
        or (t[0], t[1]) not in vectors
        or (t[0] in ("episode", "chunk", "fact") and not same_text)
    ]
    for start in range(0, len(missing), EMBED_BATCH):
        part = missing[start : start + EMBED_BATCH]
        matrix = embedder.embed([t[2] for t in part])
        for row, (kind, rid, _) in enumerate(part):
            vectors[(kind, rid)] = matrix[row]
        if on_progress is not None:
            on_progress(start + len(part), len(missing))
    summary.reembedded = len(missing)
    summary.forgotten = left
    summary.already_here = here
    batch.vectors = [
        VectorRecord(kind=kind, id=rid, vector=vectors[(kind, rid)]) for kind, rid, _ in texts
    ]
    store.apply(batch)
    return summary


def _leave_out_forgotten(store: Store, batch: Batch) -> int:
    """Take out of ``batch`` the memories a forget erased since the dump was written (and
    the facts and mentions that stand only on them): a restore never undoes a forget."""
    keys = forgotten.load(store, batch.namespace)
    before = batch.episodes
    batch.episodes, left = forgotten.left_out(keys, before)
    if not left:
        return 0
    gone = {e.id for e in before} - {e.id for e in batch.episodes}
    batch.mentions = [m for m in batch.mentions if m.episode_id not in gone]
    batch.facts = [
        f for f in batch.facts if not f.source_episode_ids or set(f.source_episode_ids) - gone
    ]
    for f in batch.facts:
        f.source_episode_ids = [i for i in f.source_episode_ids if i not in gone]
    return left


def _already_here(store: Store, batch: Batch) -> int:
    """Take out of ``batch`` the episodes whose external id (the source's turn id) the vault
    holds under another id, written since by an ingest of the same history: the one here
    stands, and the dump's facts and mentions point at it."""
    external = {e.external_id: e.id for e in batch.episodes if e.external_id}
    held = store.episodes_by_external_id(batch.namespace, list(external))
    moved = {external[x]: held[x] for x in held if held[x] != external[x]}
    if not moved:
        return 0
    batch.episodes = [e for e in batch.episodes if e.id not in moved]
    mentions = [
        m.model_copy(update={"episode_id": moved.get(m.episode_id, m.episode_id)})
        for m in batch.mentions
    ]
    batch.mentions = list({(m.episode_id, m.entity_id): m for m in mentions}.values())
    for f in batch.facts:
        f.source_episode_ids = list(dict.fromkeys(moved.get(i, i) for i in f.source_episode_ids))
    return len(moved)


def _header(number: int, line: str) -> dict[str, Any]:
    try:
        header = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"not JSON: {exc.msg}", field=f"line {number}") from exc
    except RecursionError:
        raise InvalidInputError("JSON nested too deeply to read", field=f"line {number}") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise InvalidInputError(
            f"not a memvault dump header (expected format {FORMAT!r})", field=f"line {number}"
        )
    if header.get("version") not in READS:
        raise InvalidInputError(
            f"dump version {header.get('version')!r} is not supported",
            field=f"line {number}",
            hint=f"this memvault reads versions {', '.join(map(str, READS))}",
        )
    return header


_ID_FIELDS = ("id", "subject_id", "object_id", "episode_id", "entity_id")


def _rekey(target: str) -> Callable[[str], str]:
    return lambda old: uuid.uuid5(uuid.NAMESPACE_URL, f"memvault:{target}:{old}").hex


def _rekeyed(kind: str, data: dict[str, Any], rekey: Callable[[str], str]) -> dict[str, Any]:
    out = dict(data)
    if kind == "session":
        return out  # a session's id is its name within the namespace
    for name in _ID_FIELDS:
        if out.get(name):
            out[name] = rekey(out[name])
    if out.get("source_episode_ids"):
        out["source_episode_ids"] = [rekey(i) for i in out["source_episode_ids"]]
    metadata = out.get("metadata")
    if isinstance(metadata, dict) and metadata.get("merged_from"):
        out["metadata"] = {**metadata, "merged_from": [rekey(i) for i in metadata["merged_from"]]}
    return out


def _load_line(
    line: str,
    target: str,
    batch: Batch,
    vectors: dict[tuple[str, str], np.ndarray],
    rekey: Callable[[str], str] | None,
) -> None:
    item = json.loads(line)
    if not isinstance(item, dict):
        raise ValueError("a line must be a JSON object")
    kind = item.get("type")
    if kind == "vector":
        raw = np.frombuffer(base64.b64decode(item["b64"], validate=True), dtype=np.float32)
        vectors[(item["kind"], rekey(item["id"]) if rekey else item["id"])] = raw
        return
    if kind == FOLD:
        batch.docs.append(_fold_doc(item))
        return
    if kind in PERSONA:
        batch.docs.append(_persona_doc(kind, item["data"], target, rekey))
        return
    if kind == ENTITY_TYPE:  # a namespace's own type: checked as a definition is
        defined = EntityTypeDef.model_validate({**item["data"], "name": item["id"]})
        body = defined.model_dump(exclude={"name", "built_in"})
        batch.docs.append(Doc(kind=ENTITY_TYPE, id=defined.name, body=body, status="active"))
        return
    model = _MODELS.get(kind or "")
    if model is None:
        raise ValueError(f"unknown record type {kind!r}")
    data = _rekeyed(kind or "", item["data"], rekey) if rekey else item["data"]
    batch.add(model.model_validate({**data, "namespace": target}))  # type: ignore[arg-type]


def _fold_doc(item: dict[str, Any]) -> Doc:
    body = item["data"]
    # "type" or a project's "type@project"; ValueError names a type that does not exist
    memory_type, project = parse_cell_id(str(item["id"]))
    if not isinstance(body, dict) or not isinstance(body.get("digest"), str):
        raise ValueError("a fold needs data with a text 'digest'")
    # the seq watermark belongs to the store it came from; the cursor (write times) stays
    return Doc(kind=FOLD, id=cell_id(memory_type, project), body={**body, "watermark": 0})


def _persona_doc(
    kind: str, data: dict[str, Any], target: str, rekey: Callable[[str], str] | None
) -> Doc:
    data = {**data, "namespace": target}
    if rekey:
        data["evidence"] = [
            {**e, "episode_id": rekey(e["episode_id"]) if e.get("episode_id") else None}
            for e in data.get("evidence", [])
        ]
        if kind == "attitude":
            data["id"] = rekey(data["id"])
            if data.get("superseded_by"):
                data["superseded_by"] = rekey(data["superseded_by"])
    record = (Attitude if kind == "attitude" else Skill).model_validate(data)
    return Doc(
        kind, record.id, record.model_dump(mode="json"), status=LIVE, created_at=record.first_seen
    )


def _short(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        return f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
    return str(exc) or type(exc).__name__
