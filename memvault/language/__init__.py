"""The language floor: text handling that every other floor reads the same way (issue 29's
``language/``; it starts with what derived records need to respect their own limits)."""

from memvault.language.text import clip

__all__ = ["clip"]
