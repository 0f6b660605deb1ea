"""Moving memories in and out: the logical dump (JSONL), the backup format."""
