"""The knowledge graph: the domain model (pure), the store port and its adapters."""
