"""Coordination state: small shared values and expiring locks (gate state, dream locks).

Embedded: a table in the vault's SQLite file. Server mode: Redis. Both behind
:class:`Coordination`.
"""

from memvault.coord.port import Coordination, Lease
from memvault.coord.sqlite import SQLiteCoordination

__all__ = ["Coordination", "Lease", "SQLiteCoordination"]
