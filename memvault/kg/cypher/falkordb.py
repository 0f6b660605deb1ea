"""FalkorDB over RESP with the official ``falkordb`` client: one graph per store, range
indexes on the lookup properties, RediSearch full-text indexes (English stemming) on the
``text`` of episodes and facts. Each query is atomic (FalkorDB's single-query atomicity)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from memvault.errors import InvalidInputError, StoreError
from memvault.kg.cypher.dialect import LOOKUPS, Dialect


class FalkorDialect(Dialect):
    name = "FalkorDB"

    def __init__(self, url: str, graph: str = "memvault"):
        from falkordb import FalkorDB

        self.url, self.graph_name = url, graph
        try:
            self._db = FalkorDB.from_url(url)
            self._g = self._db.select_graph(graph)
        except Exception as exc:
            raise StoreError(f"cannot connect to FalkorDB at {url}: {exc}") from exc

    def setup(self) -> None:
        try:
            rows = self.read("CALL db.indexes() YIELD label, properties RETURN label, properties")
        except StoreError as exc:
            if "empty key" not in str(exc):
                raise
            rows = []  # a graph that does not exist yet has no indexes
        existing = {(row[0], prop) for row in rows for prop in row[1]}
        for label, props in LOOKUPS.items():
            for prop in props:
                if (label, prop) not in existing:
                    self.write(f"CREATE INDEX FOR (n:{label}) ON (n.{prop})")
        for label in ("Episode", "Fact"):
            if (label, "text") not in existing:
                self.write(
                    "CALL db.idx.fulltext.createNodeIndex("
                    f"{{label: '{label}', language: 'english'}}, 'text')"
                )

    def _execute(self, query: str, params: dict[str, Any], read_only: bool) -> list[list[Any]]:
        run = self._g.ro_query if read_only else self._g.query
        return list(run(query, params).result_set)

    def fulltext(
        self, label: str, token: str, words: Sequence[str], k: int
    ) -> tuple[str, dict[str, Any]]:
        # RediSearch syntax: the namespace token AND any of the words; the words are
        # alphanumeric (the store strips the rest), so nothing needs escaping
        search = f"{token} ({'|'.join(words)})"
        if len(search) > 4000:
            raise InvalidInputError("too many query terms", field="query")
        return (
            f"CALL db.idx.fulltext.queryNodes('{label}', $q) YIELD node, score"
            " WHERE node.ns = $ns RETURN node.id, score ORDER BY score DESC, node.id LIMIT $k",
            {"q": search, "k": k},
        )

    def drop(self) -> None:
        """Delete the whole graph (tests)."""
        try:
            self._g.delete()
        except Exception as exc:  # an empty graph does not exist yet
            if "empty key" not in str(exc).lower() and "not exist" not in str(exc).lower():
                raise

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing a dead connection is no error worth raising
            self._db.connection.close()
