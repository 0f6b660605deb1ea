"""The knowledge lint: structure, grounding, claims, llm (docs/lint.md)."""
