"""What the person has been caring about, and where the vault failed them: the recall log,
recall verdicts and recall-failure knowledge gaps (docs/gaps.md)."""
