"""The Cypher store (Neo4j 5 over Bolt, FalkorDB over RESP) and its dialects."""

from memvault.kg.cypher.dialect import Dialect
from memvault.kg.cypher.store import CypherStore

__all__ = ["CypherStore", "Dialect"]
