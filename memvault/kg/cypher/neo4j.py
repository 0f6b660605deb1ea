"""Neo4j 5 over Bolt with the official ``neo4j`` driver: uniqueness constraints on the
lookup keys, full-text indexes (English analyser) on the ``text`` of episodes and facts.
Each write runs in one explicit transaction (all or nothing).

Not run by CI (no Neo4j can run on its machine): the store contract suite runs against a
Neo4j when ``MEMVAULT_TEST_NEO4J_URI`` is set (docs/server.md has the command)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memvault.errors import StoreError
from memvault.kg.cypher.dialect import LOOKUPS, Dialect


class Neo4jDialect(Dialect):
    name = "Neo4j"

    def __init__(
        self, uri: str, user: str = "neo4j", password: str = "", database: str | None = None
    ):
        import neo4j

        self.uri, self.database = uri, database
        try:
            self._driver = neo4j.GraphDatabase.driver(uri, auth=(user, password))
            self._driver.verify_connectivity()
        except Exception as exc:
            raise StoreError(f"cannot connect to Neo4j at {uri}: {exc}") from exc

    def setup(self) -> None:
        for label, props in LOOKUPS.items():
            for prop in props:
                name = f"mv_{label.lower()}_{prop}"
                self.write(f"CREATE INDEX {name} IF NOT EXISTS FOR (n:{label}) ON (n.{prop})")
        for label in ("Episode", "Fact"):
            self.write(
                f"CREATE FULLTEXT INDEX mv_{label.lower()}_text IF NOT EXISTS"
                f" FOR (n:{label}) ON EACH [n.text]"
                " OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}"
            )
        self.write("CALL db.awaitIndexes(300)")

    def _execute(self, query: str, params: dict[str, Any], read_only: bool) -> list[list[Any]]:
        import neo4j

        def work(tx: Any) -> list[list[Any]]:
            return [list(r.values()) for r in tx.run(query, params)]

        mode = neo4j.READ_ACCESS if read_only else neo4j.WRITE_ACCESS
        with self._driver.session(database=self.database, default_access_mode=mode) as session:
            if read_only:
                return session.execute_read(work)
            return session.execute_write(work)

    def fulltext(
        self, label: str, token: str, words: Sequence[str], k: int
    ) -> tuple[str, dict[str, Any]]:
        search = f"+{token} +({' OR '.join(words)})"
        return (
            f"CALL db.index.fulltext.queryNodes('mv_{label.lower()}_text', $q, {{limit: $k * 4}})"
            " YIELD node, score WHERE node.ns = $ns"
            " RETURN node.id, score ORDER BY score DESC, node.id LIMIT $k",
            {"q": search, "k": k},
        )

    def drop(self) -> None:
        """Delete every node (tests)."""
        self.write("MATCH (n) DETACH DELETE n")

    def close(self) -> None:
        self._driver.close()
