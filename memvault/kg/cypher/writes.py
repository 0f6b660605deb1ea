"""A batch as one portable Cypher query (see the store's docstring for the graph)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from memvault.clock import ensure_utc
from memvault.kg.cypher.vectors import pack
from memvault.kg.model import CHUNK, normalize_name
from memvault.kg.sqlite.sql import ns_token
from memvault.kg.sqlite.vectors import unit
from memvault.kg.store import Batch, VectorRecord

LABEL: dict[str, str] = {
    "session": "Session",
    "episode": "Episode",
    "entity": "Entity",
    "fact": "Fact",
}


def epoch(t: datetime | None) -> float | None:
    return ensure_utc(t).timestamp() if t is not None else None


def _props(kind: str, r: Any, ns: str) -> dict[str, Any]:
    base = {"body": r.model_dump_json()}
    if kind == "session":
        return base | {"last_at": epoch(r.last_at)}
    if kind == "episode":
        return base | {
            "external_id": r.external_id,
            "content_hash": r.content_hash,
            "session_id": r.session_id,
            "position": r.position,
            "occurred_at": epoch(r.occurred_at),
            "text": f"{ns_token(ns)} {r.index_text()}",
        }
    if kind == "entity":
        return base | {"names": sorted({n for n in map(normalize_name, r.names()) if n})}
    return base | {
        "subject_id": r.subject_id,
        "object_id": r.object_id,
        "predicate": r.predicate,
        "expired": r.expired_at is not None,
        "text": f"{ns_token(ns)} {r.statement}",
    }


def _nonempty(name: str) -> str:
    """UNWIND that yields one null row for an empty list, so the query goes on."""
    return f"CASE WHEN size(${name}) = 0 THEN [null] ELSE ${name} END"


def batch_query(batch: Batch, p: str) -> tuple[str, dict[str, Any]]:
    """One batch as a query part: deletes (with tombstones), then upserts, mentions,
    vectors and docs, in the order the SQLite adapter applies them. The part starts from
    ``WITH seq`` of the previous part, if any, and ends with ``seq`` bound."""
    ns = batch.namespace
    params: dict[str, Any] = {f"{p}ns": ns, f"{p}now": datetime.now(UTC).timestamp()}
    lines = [
        f"MERGE (ns_{p}:Namespace {{name: ${p}ns}})",
        f"ON CREATE SET ns_{p}.seq = 0, ns_{p}.created_at = ${p}now",
        f"SET ns_{p}.seq = ns_{p}.seq + {0 if batch.quiet else 1}",
        f"WITH ns_{p}.seq AS seq",
    ]
    if batch.deletes:
        params[f"{p}del"] = [{"kind": k, "label": LABEL[k], "id": i} for k, i in batch.deletes]
        for kind, label in LABEL.items():
            ids = [i for k, i in batch.deletes if k == kind]
            if not ids:
                continue
            params[f"{p}del_{kind}"] = ids
            lines += [
                "WITH seq",
                f"UNWIND {_nonempty(f'{p}del_{kind}')} AS gone",
                f"OPTIONAL MATCH (d:{label}) WHERE d.ns = ${p}ns AND d.id = gone",
                "DETACH DELETE d",
                "WITH DISTINCT seq",
            ]
            if kind != "session":
                lines += [
                    "WITH seq",
                    f"UNWIND {_nonempty(f'{p}del_{kind}')} AS gone",
                    f"OPTIONAL MATCH (v:Vector) WHERE v.ns = ${p}ns AND v.kind = '{kind}'"
                    " AND v.id = gone",
                    "DETACH DELETE v",
                    "WITH DISTINCT seq",
                ]
            if kind == "episode":  # its chunks' vectors go with it (ids "<episode id>:<n>")
                params[f"{p}chunks_of"] = [f"{i}{CHUNK}" for i in ids]
                lines += [
                    "WITH seq",
                    f"UNWIND {_nonempty(f'{p}chunks_of')} AS prefix",
                    f"OPTIONAL MATCH (v:Vector) WHERE v.ns = ${p}ns AND v.kind = 'chunk'"
                    " AND v.id STARTS WITH prefix",
                    "FOREACH (_ IN CASE WHEN v IS NULL THEN [] ELSE [1] END |"
                    f" CREATE (:Tombstone {{ns: ${p}ns, kind: 'chunk', id: v.id, seq: seq}}))",
                    "DETACH DELETE v",
                    "WITH DISTINCT seq",
                ]
        lines.append(
            f"FOREACH (t IN ${p}del | CREATE (:Tombstone {{ns: ${p}ns, kind: t.kind,"
            " id: t.id, seq: seq}))"
        )
    groups: list[tuple[str, Sequence[Any]]] = [
        ("session", batch.sessions),
        ("episode", batch.episodes),
        ("entity", batch.entities),
        ("fact", batch.facts),
    ]
    for kind, records in groups:
        if not records:
            continue
        params[f"{p}{kind}"] = [
            {"id": r.id, "rank": n, "props": _props(kind, r, ns)} for n, r in enumerate(records)
        ]
        lines.append(
            f"FOREACH (r IN ${p}{kind} | MERGE (n:{LABEL[kind]} {{ns: ${p}ns, id: r.id}})"
            " ON CREATE SET n.rank = seq * 1000000 + r.rank"
            " SET n += r.props, n.seq = seq)"
        )
    if batch.mentions:
        params[f"{p}men"] = [{"e": m.episode_id, "x": m.entity_id} for m in batch.mentions]
        lines += [
            "WITH seq",
            f"UNWIND {_nonempty(f'{p}men')} AS m",
            f"OPTIONAL MATCH (e:Episode) WHERE e.ns = ${p}ns AND e.id = m.e",
            f"OPTIONAL MATCH (x:Entity) WHERE x.ns = ${p}ns AND x.id = m.x",
            "FOREACH (_ IN CASE WHEN e IS NULL OR x IS NULL THEN [] ELSE [1] END |"
            " MERGE (e)-[:MENTIONS]->(x))",
            "WITH DISTINCT seq",
        ]
    if batch.vectors:
        params[f"{p}vec"] = [_vector(v) for v in batch.vectors]
        lines.append(
            f"FOREACH (v IN ${p}vec | MERGE (n:Vector {{ns: ${p}ns, kind: v.kind, id: v.id}})"
            " SET n.vec = v.vec, n.vseq = seq)"
        )
    if batch.docs:
        params[f"{p}doc"] = [
            {
                "kind": d.kind,
                "id": d.id,
                "status": d.status,
                "created_at": epoch(d.created_at) or params[f"{p}now"],
                "body": json.dumps(d.body, sort_keys=True, default=str),
            }
            for d in batch.docs
        ]
        lines.append(
            f"FOREACH (d IN ${p}doc | MERGE (n:Doc {{ns: ${p}ns, kind: d.kind, id: d.id}})"
            " ON CREATE SET n.created_at = d.created_at"
            " SET n.status = d.status, n.body = d.body, n.seq = seq)"
        )
    if batch.drop_docs:
        params[f"{p}drop"] = [f"{kind}/{i}" for kind, i in batch.drop_docs]
        lines += [
            "WITH seq",
            f"UNWIND ${p}drop AS gone",
            f"OPTIONAL MATCH (d:Doc) WHERE d.ns = ${p}ns AND d.kind + '/' + d.id = gone",
            "DETACH DELETE d",
            "WITH DISTINCT seq",
        ]
    return "\n".join(lines), params


def _vector(v: VectorRecord) -> dict[str, Any]:
    """float32 bytes in base64: a list property of floats costs ~10 µs a number to parse
    on the way back (RESP / Bolt), a string one memcpy."""
    return {"kind": v.kind, "id": v.id, "vec": pack(unit(v.vector))}
