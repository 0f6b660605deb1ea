"""The read path: candidates from vectors, keywords and the graph; fused; scored; explained."""

from memvault.recall.engine import Recaller
from memvault.recall.results import Explanation, Hit, Recall

__all__ = ["Explanation", "Hit", "Recall", "Recaller"]
