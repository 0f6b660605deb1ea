"""Writing a batch into the SQLite schema: upserts with their index rows, deletes, vectors
and documents. Runs inside a transaction the store opens; knows nothing of locking."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence

from memvault.errors import InvalidInputError
from memvault.kg.model import CHUNK, Entity, Episode, Fact, RecordKind, normalize_name
from memvault.kg.sqlite.sql import chunks as _chunks
from memvault.kg.sqlite.sql import marks as _marks
from memvault.kg.sqlite.sql import ns_token
from memvault.kg.sqlite.vectors import unit
from memvault.kg.store import Batch, VectorRecord


def write_batch(c: sqlite3.Connection, batch: Batch) -> int:
    """Write one batch on ``c`` inside the caller's transaction; return its sequence number."""
    ns = batch.namespace
    c.execute("INSERT OR IGNORE INTO namespaces(name, created_at) VALUES (?, ?)", (ns, time.time()))
    step = 0 if batch.quiet else 1  # a quiet batch (documents only) leaves the watermark
    seq = c.execute(
        "UPDATE namespaces SET seq = seq + ? WHERE name = ? RETURNING seq", (step, ns)
    ).fetchone()[0]
    for kind, record_id in batch.deletes:
        _delete(c, ns, kind, record_id, seq)
    for s in batch.sessions:
        c.execute(
            "INSERT INTO sessions(namespace, id, seq, body) VALUES (?, ?, ?, ?)"
            " ON CONFLICT(namespace, id) DO UPDATE SET seq = excluded.seq,"
            " body = excluded.body",
            (ns, s.id, seq, s.model_dump_json()),
        )
    _upsert_episodes(c, ns, batch.episodes, seq)
    _upsert_entities(c, ns, batch.entities, seq)
    _upsert_facts(c, ns, batch.facts, seq)
    c.executemany(
        "INSERT OR IGNORE INTO mentions(namespace, entity_id, episode_id) VALUES (?, ?, ?)",
        [(ns, m.entity_id, m.episode_id) for m in batch.mentions],
    )
    _upsert_vectors(c, ns, batch.vectors, seq)
    c.executemany(
        "INSERT INTO docs(namespace, kind, id, status, created_at, seq, body)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(namespace, kind, id) DO UPDATE SET"
        " status = excluded.status, seq = excluded.seq, body = excluded.body",
        [
            (
                ns,
                d.kind,
                d.id,
                d.status,
                (d.created_at.timestamp() if d.created_at else time.time()),
                seq,
                json.dumps(d.body, sort_keys=True, default=str),
            )
            for d in batch.docs
        ],
    )
    c.executemany(
        "DELETE FROM docs WHERE namespace = ? AND kind = ? AND id = ?",
        [(ns, kind, i) for kind, i in batch.drop_docs],
    )
    return int(seq)


def _upsert_episodes(c: sqlite3.Connection, ns: str, episodes: list[Episode], seq: int) -> None:
    existing = _rowids(c, "episodes", [e.id for e in episodes])
    token = ns_token(ns)
    for e in episodes:
        row = (
            ns,
            e.external_id,
            e.content_hash,
            e.session_id,
            e.position,
            e.occurred_at.timestamp(),
            seq,
            e.model_dump_json(),
        )
        rowid = existing.get(e.id)
        if rowid is None:
            cur = c.execute(
                "INSERT INTO episodes(namespace, external_id, content_hash, session_id,"
                " position, occurred_at, seq, body, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*row, e.id),
            )
            rowid = cur.lastrowid
        else:
            c.execute(
                "UPDATE episodes SET namespace = ?, external_id = ?, content_hash = ?,"
                " session_id = ?, position = ?, occurred_at = ?, seq = ?, body = ?"
                " WHERE rowid = ?",
                (*row, rowid),
            )
            c.execute("DELETE FROM episodes_fts WHERE rowid = ?", (rowid,))
        c.execute(
            "INSERT INTO episodes_fts(rowid, ns, text) VALUES (?, ?, ?)",
            (rowid, token, e.index_text()),
        )


def _upsert_entities(c: sqlite3.Connection, ns: str, entities: list[Entity], seq: int) -> None:
    for ent in entities:
        c.execute(
            "INSERT INTO entities(id, namespace, seq, body) VALUES (?, ?, ?, ?)"
            " ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, body = excluded.body",
            (ent.id, ns, seq, ent.model_dump_json()),
        )
        c.execute("DELETE FROM entity_names WHERE entity_id = ?", (ent.id,))
        norms = {normalize_name(n) for n in ent.names()} - {""}
        c.executemany(
            "INSERT OR IGNORE INTO entity_names(namespace, norm, entity_id) VALUES (?, ?, ?)",
            [(ns, n, ent.id) for n in norms],
        )


def _upsert_facts(c: sqlite3.Connection, ns: str, facts: list[Fact], seq: int) -> None:
    existing = _rowids(c, "facts", [f.id for f in facts])
    token = ns_token(ns)
    for f in facts:
        row = (
            ns,
            f.subject_id,
            f.object_id,
            f.predicate,
            int(f.expired_at is not None),
            seq,
            f.model_dump_json(),
        )
        rowid = existing.get(f.id)
        if rowid is None:
            cur = c.execute(
                "INSERT INTO facts(namespace, subject_id, object_id, predicate, expired,"
                " seq, body, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (*row, f.id),
            )
            rowid = cur.lastrowid
        else:
            c.execute(
                "UPDATE facts SET namespace = ?, subject_id = ?, object_id = ?,"
                " predicate = ?, expired = ?, seq = ?, body = ? WHERE rowid = ?",
                (*row, rowid),
            )
            c.execute("DELETE FROM facts_fts WHERE rowid = ?", (rowid,))
        c.execute(
            "INSERT INTO facts_fts(rowid, ns, text) VALUES (?, ?, ?)",
            (rowid, token, f.statement),
        )


def _upsert_vectors(c: sqlite3.Connection, ns: str, vectors: list[VectorRecord], seq: int) -> None:
    if not vectors:
        return
    replaced: set[str] = set()
    for kind in {v.kind for v in vectors}:
        ids = [v.id for v in vectors if v.kind == kind]
        for part in _chunks(ids):
            rows = c.execute(
                f"SELECT id FROM vectors WHERE namespace = ? AND kind = ?"
                f" AND id IN ({_marks(len(part))})",
                (ns, kind, *part),
            ).fetchall()
            if rows:
                replaced.add(kind)
    c.executemany(
        "INSERT INTO vectors(namespace, kind, id, seq, vec) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT(namespace, kind, id) DO UPDATE SET seq = excluded.seq,"
        " vec = excluded.vec",
        [(ns, v.kind, v.id, seq, unit(v.vector).tobytes()) for v in vectors],
    )
    for kind in {v.kind for v in vectors}:
        _bump_vector_state(c, ns, kind, seq, new_gen=kind in replaced)


def _bump_vector_state(
    c: sqlite3.Connection, ns: str, kind: str, seq: int, *, new_gen: bool
) -> None:
    c.execute(
        "INSERT INTO vector_state(namespace, kind, gen, seq) VALUES (?, ?, ?, ?)"
        " ON CONFLICT(namespace, kind) DO UPDATE SET seq = excluded.seq,"
        " gen = vector_state.gen + ?",
        (ns, kind, int(new_gen), seq, int(new_gen)),
    )


def _delete(c: sqlite3.Connection, ns: str, kind: RecordKind, record_id: str, seq: int) -> None:
    if kind == "episode":
        for (rowid,) in c.execute(
            "SELECT rowid FROM episodes WHERE id = ? AND namespace = ?", (record_id, ns)
        ).fetchall():
            c.execute("DELETE FROM episodes_fts WHERE rowid = ?", (rowid,))
        c.execute("DELETE FROM episodes WHERE id = ? AND namespace = ?", (record_id, ns))
        c.execute("DELETE FROM mentions WHERE episode_id = ? AND namespace = ?", (record_id, ns))
    elif kind == "fact":
        for (rowid,) in c.execute(
            "SELECT rowid FROM facts WHERE id = ? AND namespace = ?", (record_id, ns)
        ).fetchall():
            c.execute("DELETE FROM facts_fts WHERE rowid = ?", (rowid,))
        c.execute("DELETE FROM facts WHERE id = ? AND namespace = ?", (record_id, ns))
    elif kind == "entity":
        c.execute("DELETE FROM entities WHERE id = ? AND namespace = ?", (record_id, ns))
        c.execute("DELETE FROM entity_names WHERE entity_id = ? AND namespace = ?", (record_id, ns))
        c.execute("DELETE FROM mentions WHERE entity_id = ? AND namespace = ?", (record_id, ns))
    elif kind == "session":
        c.execute("DELETE FROM sessions WHERE id = ? AND namespace = ?", (record_id, ns))
    else:
        raise InvalidInputError(f"unknown record kind {kind!r}", field="deletes")
    if kind != "session":
        gone = c.execute(
            "DELETE FROM vectors WHERE namespace = ? AND kind = ? AND id = ? RETURNING id",
            (ns, kind, record_id),
        ).fetchall()
        if gone:
            _bump_vector_state(c, ns, kind, seq, new_gen=True)
    if kind == "episode":  # its chunks' vectors go with it (ids "<episode id>:<n>")
        prefix = f"{record_id}{CHUNK}"
        chunks = c.execute(
            "DELETE FROM vectors WHERE namespace = ? AND kind = 'chunk'"
            " AND substr(id, 1, ?) = ? RETURNING id",
            (ns, len(prefix), prefix),
        ).fetchall()
        if chunks:  # logged, so the approximate index of chunks lets them go too
            _bump_vector_state(c, ns, "chunk", seq, new_gen=True)
            c.executemany(
                "INSERT INTO deletions(namespace, kind, id, seq) VALUES (?, 'chunk', ?, ?)",
                [(ns, r[0], seq) for r in chunks],
            )
    c.execute(
        "INSERT INTO deletions(namespace, kind, id, seq) VALUES (?, ?, ?, ?)",
        (ns, kind, record_id, seq),
    )


def _rowids(c: sqlite3.Connection, table: str, ids: Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in _chunks(list(ids)):
        rows = c.execute(
            f"SELECT id, rowid FROM {table} WHERE id IN ({_marks(len(part))})", part
        ).fetchall()
        out.update(dict(rows))
    return out
