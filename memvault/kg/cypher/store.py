"""The Cypher store: one adapter for Neo4j 5 and FalkorDB, in portable Cypher.

What differs between the two servers (DDL, full-text calls, the executor) sits in a
:class:`Dialect`; everything here is shared text, kept portable (decision 6 of the brief):
times as epoch seconds, own ``id`` properties, nested data as JSON strings, no ``EXISTS {}``
or ``COUNT {}`` subqueries, no ``=~``, no ``elementId()``, no named indexes.

The graph:

- ``(:Namespace {name, seq})`` — the write counter (the watermark);
- ``(:Session|:Episode|:Entity|:Fact {ns, id, body, seq, rank, ...})`` — ``body`` is the
  record's JSON, the other properties are what lookups filter on; ``rank`` keeps insertion
  order; episodes and facts carry ``text`` (a namespace token + the indexed words) for the
  full-text index;
- ``(:Episode)-[:MENTIONS]->(:Entity)``;
- ``(:Vector {ns, kind, id, vec, vseq})`` — unit vectors (float32, base64), searched exactly
  in memory;
- ``(:Tombstone {ns, kind, id, seq})`` — deletions, for the change feed;
- ``(:Doc {ns, kind, id, status, created_at, seq, body})``.

**Atomicity.** A batch is written by one query, and each query is atomic on both servers
(FalkorDB: by design; Neo4j: in one transaction). ``transaction()`` buffers the batches of
its block and writes them all in one query when the block ends, or nothing when it raises.
Reads inside the block see what was committed before it (the writes are not visible until
the end): read-modify-write code stays correct, its isolation from other writers is the
server's per-query isolation.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np

from memvault.errors import InvalidInputError
from memvault.kg.cypher.dialect import Dialect
from memvault.kg.cypher.inventory import MODEL, Inventory
from memvault.kg.cypher.vectors import Matrix, unpack
from memvault.kg.cypher.writes import LABEL, batch_query
from memvault.kg.model import (
    Entity,
    Episode,
    Fact,
    Session,
    VectorKind,
    normalize_name,
)
from memvault.kg.sqlite.sql import ns_token
from memvault.kg.sqlite.vectors import unit
from memvault.kg.store import Batch, FactQuery, Store

M = TypeVar("M", Session, Episode, Entity, Fact)
_WORD = re.compile(r"[a-z0-9]+")


class CypherStore(Inventory, Store):
    def __init__(self, dialect: Dialect):
        self.d = dialect
        self.d.setup()
        self._lock = threading.RLock()
        self._pending: list[Batch] | None = None
        self._depth = 0
        self._matrices: dict[tuple[str, str], Matrix] = {}

    # -- writes ---------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            outer = self._depth == 0
            if outer:
                self._pending = []
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if outer:
                    self._pending = None
                raise
            self._depth -= 1
            if outer:
                batches, self._pending = self._pending or [], None
                if batches:
                    self._write(batches)

    def apply(self, batch: Batch) -> int:
        batch.check()
        with self._lock:
            if self._pending is not None:
                self._pending.append(batch)
                return self.watermark(batch.namespace) + len(self._pending)
            return self._write([batch])

    def _write(self, batches: list[Batch]) -> int:
        parts: list[str] = []
        params: dict[str, Any] = {}
        for n, batch in enumerate(batches):
            part, p = batch_query(batch, f"b{n}_")
            parts.append(part)
            params.update(p)
        query = "\n".join(parts) + "\nRETURN seq"
        rows = self.d.write(query, params)
        return int(rows[0][0]) if rows else 0

    # -- lookups by id --------------------------------------------------------------------
    def _bodies(self, kind: str, ns: str, ids: Sequence[str]) -> list[Any]:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        rows = self.d.read(
            f"MATCH (n:{LABEL[kind]}) WHERE n.ns = $ns AND n.id IN $ids RETURN n.body",
            {"ns": ns, "ids": wanted},
        )
        model = MODEL[kind]
        found = {r.id: r for r in (model.model_validate_json(row[0]) for row in rows)}
        return [found[i] for i in wanted if i in found]

    def get_episodes(self, namespace: str, ids: Sequence[str]) -> list[Episode]:
        return self._bodies("episode", namespace, ids)

    def get_facts(self, namespace: str, ids: Sequence[str]) -> list[Fact]:
        return self._bodies("fact", namespace, ids)

    def ids_starting_with(self, namespace: str, prefix: str, limit: int = 2) -> list[str]:
        found: list[str] = []
        for kind in ("episode", "fact"):
            rows = self.d.read(
                f"MATCH (n:{LABEL[kind]}) WHERE n.ns = $ns AND n.id STARTS WITH $p"
                " RETURN n.id LIMIT $k",
                {"ns": namespace, "p": prefix, "k": limit},
            )
            found += [str(r[0]) for r in rows]
        return found[:limit]

    def get_entities(self, namespace: str, ids: Sequence[str]) -> list[Entity]:
        return self._bodies("entity", namespace, ids)

    def get_sessions(self, namespace: str, ids: Sequence[str]) -> list[Session]:
        return self._bodies("session", namespace, ids)

    def episodes_by_external_id(
        self, namespace: str, external_ids: Sequence[str]
    ) -> dict[str, str]:
        if not external_ids:
            return {}
        rows = self.d.read(
            "MATCH (n:Episode) WHERE n.ns = $ns AND n.external_id IN $ids"
            " RETURN n.external_id, n.id",
            {"ns": namespace, "ids": list(external_ids)},
        )
        return {r[0]: r[1] for r in rows}

    def episodes_by_hash(self, namespace: str, hashes: Sequence[str]) -> dict[str, str]:
        if not hashes:
            return {}
        rows = self.d.read(
            "MATCH (n:Episode) WHERE n.ns = $ns AND n.content_hash IN $hs"
            " RETURN n.content_hash, min(n.id)",
            {"ns": namespace, "hs": list(dict.fromkeys(hashes))},
        )
        return {r[0]: r[1] for r in rows}

    # -- graph lookups --------------------------------------------------------------------
    def find_entities(self, namespace: str, names: Sequence[str]) -> list[Entity]:
        norms = list(dict.fromkeys(n for n in (normalize_name(x) for x in names) if n))
        if not norms:
            return []
        rows = self.d.read(
            "MATCH (n:Entity) WHERE n.ns = $ns AND any(x IN n.names WHERE x IN $names)"
            " RETURN n.id ORDER BY n.rank",
            {"ns": namespace, "names": norms},
        )
        return self.get_entities(namespace, [r[0] for r in rows])

    def episodes_mentioning(
        self, namespace: str, entity_ids: Sequence[str], limit: int
    ) -> list[tuple[str, str]]:
        if not entity_ids or limit <= 0:
            return []
        rows = self.d.read(
            "MATCH (e:Episode)-[:MENTIONS]->(x:Entity) WHERE e.ns = $ns AND x.ns = $ns"
            " AND x.id IN $ids RETURN e.id, x.id ORDER BY e.occurred_at DESC, e.id LIMIT $k",
            {"ns": namespace, "ids": list(entity_ids), "k": int(limit)},
        )
        return [(r[0], r[1]) for r in rows]

    def facts_about(
        self, namespace: str, entity_ids: Sequence[str], include_expired: bool = False
    ) -> list[Fact]:
        if not entity_ids:
            return []
        live = "" if include_expired else " AND n.expired = false"
        rows = self.d.read(
            "MATCH (n:Fact) WHERE n.ns = $ns AND (n.subject_id IN $ids OR n.object_id IN $ids)"
            f"{live} RETURN n.body ORDER BY n.rank",
            {"ns": namespace, "ids": list(entity_ids)},
        )
        return [Fact.model_validate_json(r[0]) for r in rows]

    def list_facts(self, namespace: str, query: FactQuery) -> list[Fact]:
        where = ["n.ns = $ns"]
        params: dict[str, Any] = {"ns": namespace, "skip": query.offset, "k": query.limit}
        if query.subject_ids is not None:
            if not query.subject_ids:
                return []
            where.append("n.subject_id IN $ids")
            params["ids"] = list(query.subject_ids)
        if query.predicate is not None:
            where.append("n.predicate = $p")
            params["p"] = query.predicate
        if not query.include_expired:
            where.append("n.expired = false")
        rows = self.d.read(
            f"MATCH (n:Fact) WHERE {' AND '.join(where)} RETURN n.body ORDER BY n.rank"
            " SKIP $skip LIMIT $k",
            params,
        )
        return [Fact.model_validate_json(r[0]) for r in rows]

    def list_episodes(
        self, namespace: str, *, session_id: str | None = None, limit: int = 1000, offset: int = 0
    ) -> list[Episode]:
        where = "n.ns = $ns" + (" AND n.session_id = $s" if session_id is not None else "")
        rows = self.d.read(
            f"MATCH (n:Episode) WHERE {where} RETURN n.body"
            " ORDER BY n.occurred_at, coalesce(n.position, -1), n.id SKIP $skip LIMIT $k",
            {"ns": namespace, "s": session_id, "skip": offset, "k": limit},
        )
        return [Episode.model_validate_json(r[0]) for r in rows]

    def session_neighbours(
        self, namespace: str, episodes: Sequence[Episode], window: int
    ) -> dict[str, list[str]]:
        asks = [
            {
                "id": e.id,
                "s": e.session_id,
                "lo": e.position - window,
                "hi": e.position + window,
                "p": e.position,
            }
            for e in episodes
            if e.session_id is not None and e.position is not None and window > 0
        ]
        if not asks:
            return {}
        rows = self.d.read(
            "UNWIND $asks AS a MATCH (n:Episode) WHERE n.ns = $ns AND n.session_id = a.s"
            " AND n.position >= a.lo AND n.position <= a.hi AND n.position <> a.p"
            " RETURN a.id, n.id, n.position ORDER BY a.id, n.position",
            {"ns": namespace, "asks": asks},
        )
        out: dict[str, list[str]] = {str(a["id"]): [] for a in asks}
        for ask_id, rid, _ in rows:
            out[ask_id].append(rid)
        return out

    # -- search ---------------------------------------------------------------------------
    def vector_topk(
        self, namespace: str, kind: VectorKind, query: np.ndarray, k: int
    ) -> list[tuple[str, float]]:
        ids, data = self._fresh(namespace, kind).stack()
        if not ids or k <= 0:
            return []
        q = unit(query)
        if q.shape[0] != data.shape[1]:
            raise InvalidInputError(
                f"query vector has {q.shape[0]} dimensions, the index has {data.shape[1]}",
                field="query",
                hint="recall with the embedder the namespace was written with",
            )
        scores = data @ q
        order = np.argsort(-scores, kind="stable")[:k]
        return [(ids[i], float(scores[i])) for i in order]

    def _fresh(self, namespace: str, kind: str) -> Matrix:
        with self._lock:
            m = self._matrices.setdefault((namespace, kind), Matrix())
            mark = self.watermark(namespace)
            if m.seq >= mark:
                return m
            params = {"ns": namespace, "kind": kind, "since": m.seq, "mark": mark}
            ups = self.d.read(
                "MATCH (v:Vector) WHERE v.ns = $ns AND v.kind = $kind AND v.vseq > $since"
                " AND v.vseq <= $mark RETURN v.vseq, v.id, v.vec",
                params,
            )
            gone = self.d.read(
                "MATCH (t:Tombstone) WHERE t.ns = $ns AND t.kind = $kind AND t.seq > $since"
                " AND t.seq <= $mark RETURN t.seq, t.id",
                params,
            )
            m.apply([(r[0], r[1], r[2]) for r in ups], [(r[0], r[1]) for r in gone])
            m.seq = mark
            return m

    def keyword_topk(
        self, namespace: str, kind: VectorKind, terms: Sequence[str], k: int
    ) -> list[tuple[str, float]]:
        if kind not in ("episode", "fact"):
            raise InvalidInputError(f"no keyword index for {kind!r}", field="kind")
        words = sorted({w for t in terms for w in _WORD.findall(t.lower())})
        if not words or k <= 0:
            return []
        query, params = self.d.fulltext(LABEL[kind], ns_token(namespace), words, k)
        rows = self.d.read(query, params | {"ns": namespace})
        return [(r[0], float(r[1])) for r in rows]

    def get_vectors(
        self, namespace: str, kind: VectorKind, ids: Sequence[str]
    ) -> dict[str, np.ndarray]:
        if not ids:
            return {}
        rows = self.d.read(
            "MATCH (v:Vector) WHERE v.ns = $ns AND v.kind = $kind AND v.id IN $ids"
            " RETURN v.id, v.vec",
            {"ns": namespace, "kind": kind, "ids": list(ids)},
        )
        return {r[0]: unpack(r[1]) for r in rows}

    def close(self) -> None:
        self.d.close()
