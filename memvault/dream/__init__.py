"""The dream: the gate, the stages (each proposes changes) and the runner (docs/dream.md)."""
