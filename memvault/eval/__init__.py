"""Measuring memvault: the recall evaluation contract (see ARCHITECTURE.md)."""
