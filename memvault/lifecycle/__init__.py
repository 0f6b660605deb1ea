"""Lifecycle of memories: stickiness and decay ops, the hygiene janitor (and, later, tiers
and one-way digest compression). Every op proposes changes in a dream workspace."""
