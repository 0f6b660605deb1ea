"""The read path: candidates from vectors, keywords and the graph; fused; scored; explained."""

from memvault.recall.engine import Hit, Recaller

__all__ = ["Hit", "Recaller"]
