"""One home for every background change: proposed changes and plans (``plan``), the
namespace snapshot producers read (``workspace``), routing to review (``routing``), and the
one applier (``apply``: journaled transactions, resume, undo, the review queue).

Producers (the dream's stages, the lint, lifecycle maintenance, later the persona layers)
import this package and return plans; it imports the domain, the store port and settings
only, never a producer (tests/unit/test_layers.py holds it to that).
"""
