"""The Cypher store's change feed, inventory and documents: reads that walk a namespace
rather than answer a query. A mixin of ``CypherStore``, which provides the dialect."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from memvault.kg.cypher.dialect import Dialect
from memvault.kg.cypher.writes import LABEL
from memvault.kg.model import Entity, Episode, Fact, Mention, Session
from memvault.kg.store import Changes, Doc

MODEL: dict[str, type[Session | Episode | Entity | Fact]] = {
    "session": Session,
    "episode": Episode,
    "entity": Entity,
    "fact": Fact,
}


class Inventory:
    d: Dialect

    # -- change feed, inventory -----------------------------------------------------------
    def watermark(self, namespace: str) -> int:
        rows = self.d.read("MATCH (n:Namespace) WHERE n.name = $ns RETURN n.seq", {"ns": namespace})
        return int(rows[0][0]) if rows else 0

    def changed_since(self, namespace: str, watermark: int) -> Changes:
        mark = self.watermark(namespace)
        params = {"ns": namespace, "since": watermark, "mark": mark}

        def since(kind: str) -> list[Any]:
            rows = self.d.read(
                f"MATCH (n:{LABEL[kind]}) WHERE n.ns = $ns AND n.seq > $since AND n.seq <= $mark"
                " RETURN n.body ORDER BY n.seq, n.id",
                params,
            )
            return [MODEL[kind].model_validate_json(r[0]) for r in rows]

        deleted = self.d.read(
            "MATCH (t:Tombstone) WHERE t.ns = $ns AND t.seq > $since AND t.seq <= $mark"
            " AND t.kind <> 'chunk' RETURN t.kind, t.id ORDER BY t.seq",  # vectors, not records
            params,
        )
        return Changes(
            watermark=mark,
            episodes=since("episode"),
            facts=since("fact"),
            entities=since("entity"),
            sessions=since("session"),
            deleted=[(r[0], r[1]) for r in deleted],
        )

    def speakers_since(self, namespace: str, watermark: int) -> tuple[int, set[str]]:
        mark = self.watermark(namespace)
        rows = self.d.read(
            "MATCH (n:Episode) WHERE n.ns = $ns AND n.seq > $since AND n.seq <= $mark"
            " RETURN n.body",
            {"ns": namespace, "since": watermark, "mark": mark},
        )
        found = (json.loads(r[0]).get("speaker") for r in rows)
        return mark, {name for name in found if name}

    def namespaces(self) -> list[str]:
        rows = self.d.read("MATCH (n:Namespace) RETURN n.name ORDER BY n.name")
        return [r[0] for r in rows if not r[0].startswith("_")]

    def counts(self, namespace: str) -> dict[str, int]:
        def one(query: str) -> int:
            return int(self.d.read(query, {"ns": namespace})[0][0])

        return {
            "episodes": one("MATCH (n:Episode) WHERE n.ns = $ns RETURN count(n)"),
            "facts": one("MATCH (n:Fact) WHERE n.ns = $ns AND n.expired = false RETURN count(n)"),
            "facts_all": one("MATCH (n:Fact) WHERE n.ns = $ns RETURN count(n)"),
            "entities": one("MATCH (n:Entity) WHERE n.ns = $ns RETURN count(n)"),
            "sessions": one("MATCH (n:Session) WHERE n.ns = $ns RETURN count(n)"),
            "mentions": one(
                "MATCH (e:Episode)-[m:MENTIONS]->(:Entity) WHERE e.ns = $ns RETURN count(m)"
            ),
            "vectors": one("MATCH (n:Vector) WHERE n.ns = $ns RETURN count(n)"),
        }

    def iter_records(self, namespace: str) -> Iterator[Session | Episode | Entity | Fact | Mention]:
        for kind in ("session", "entity", "episode"):
            rows = self.d.read(
                f"MATCH (n:{LABEL[kind]}) WHERE n.ns = $ns RETURN n.body ORDER BY n.id",
                {"ns": namespace},
            )
            for (body,) in rows:
                yield MODEL[kind].model_validate_json(body)
        for ep, ent in self.d.read(
            "MATCH (e:Episode)-[:MENTIONS]->(x:Entity) WHERE e.ns = $ns"
            " RETURN e.id, x.id ORDER BY e.id, x.id",
            {"ns": namespace},
        ):
            yield Mention(namespace=namespace, episode_id=ep, entity_id=ent)
        rows = self.d.read(
            "MATCH (n:Fact) WHERE n.ns = $ns RETURN n.body ORDER BY n.id", {"ns": namespace}
        )
        for (body,) in rows:
            yield Fact.model_validate_json(body)

    def mentions_of(self, namespace: str, episode_ids: Sequence[str]) -> list[Mention]:
        if not episode_ids:
            return []
        rows = self.d.read(
            "MATCH (e:Episode)-[:MENTIONS]->(x:Entity) WHERE e.ns = $ns AND e.id IN $ids"
            " RETURN e.id, x.id ORDER BY e.id, x.id",
            {"ns": namespace, "ids": list(episode_ids)},
        )
        return [Mention(namespace=namespace, episode_id=r[0], entity_id=r[1]) for r in rows]

    def sessions_written_since(self, namespace: str, watermark: int | None) -> int:
        rows = self.d.read(
            "MATCH (n:Session) WHERE n.ns = $ns AND n.seq > $w RETURN count(n)",
            {"ns": namespace, "w": -1 if watermark is None else watermark},
        )
        return int(rows[0][0])

    def days_without_session_written_since(self, namespace: str, watermark: int | None) -> int:
        rows = self.d.read(
            "MATCH (e:Episode) WHERE e.ns = $ns AND e.session_id IS NULL AND e.seq > $w"
            " RETURN count(DISTINCT toInteger(floor(e.occurred_at / 86400)))",
            {"ns": namespace, "w": -1 if watermark is None else watermark},
        )
        return int(rows[0][0])

    # -- documents ------------------------------------------------------------------------
    def get_docs(self, namespace: str, kind: str, ids: Sequence[str]) -> list[Doc]:
        if not ids:
            return []
        rows = self.d.read(
            "MATCH (d:Doc) WHERE d.ns = $ns AND d.kind = $kind AND d.id IN $ids"
            " RETURN d.id, d.status, d.created_at, d.body",
            {"ns": namespace, "kind": kind, "ids": list(ids)},
        )
        found = {r[0]: Doc.from_row(kind, r) for r in rows}
        return [found[i] for i in ids if i in found]

    def iter_docs(self, namespace: str) -> Iterator[Doc]:
        rows = self.d.read(
            "MATCH (d:Doc) WHERE d.ns = $ns RETURN d.kind, d.id, d.status, d.created_at, d.body"
            " ORDER BY d.kind, d.id",
            {"ns": namespace},
        )
        for kind, *row in rows:
            yield Doc.from_row(kind, row)

    def list_docs(
        self, namespace: str, kind: str, *, status: str | None = None, limit: int = 100
    ) -> list[Doc]:
        where = "d.ns = $ns AND d.kind = $kind" + (
            " AND d.status = $st" if status is not None else ""
        )
        rows = self.d.read(
            f"MATCH (d:Doc) WHERE {where} RETURN d.id, d.status, d.created_at, d.body"
            " ORDER BY d.created_at DESC, d.seq DESC, d.id LIMIT $k",
            {"ns": namespace, "kind": kind, "st": status, "k": limit},
        )
        return [Doc.from_row(kind, r) for r in rows]

    def count_docs(self, namespace: str, kind: str) -> int:
        rows = self.d.read(
            "MATCH (d:Doc) WHERE d.ns = $ns AND d.kind = $kind RETURN count(d)",
            {"ns": namespace, "kind": kind},
        )
        return int(rows[0][0])
