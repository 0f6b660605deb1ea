"""The Cypher store (Neo4j 5 over Bolt, FalkorDB over RESP) and its dialects."""

from memvault.kg.cypher.store import CypherStore, Dialect

__all__ = ["CypherStore", "Dialect"]
