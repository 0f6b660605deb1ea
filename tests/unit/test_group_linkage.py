"""How statements are grouped for a question about now (memvault/recall/groups.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from memvault.kg.model import Episode
from memvault.recall.groups import newest_of_groups

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def test_complete_linkage_keeps_a_line_alike_to_one_member_out_of_the_group() -> None:
    """A ~ B and B ~ C but not A ~ C: linked through B they form one group, led by the
    newest, C; with complete linkage C (a line alike to B only) stays out and A leads."""
    a, b, c = (
        Episode(
            namespace="n",
            content=text,
            speaker="Greta",
            occurred_at=T0 + timedelta(days=d),
            created_at=T0,
        )
        for text, d in (
            ("They moved me to the mobile team.", 10),
            ("I'm on the data team.", 0),
            ("My old team lunch was fun.", 20),
        )
    )
    vectors = {  # unit vectors: A·B 0.6, B·C 0.6, A·C 0.2
        a.id: np.array([1.0, 0.0, 0.0]),
        b.id: np.array([0.6, 0.8, 0.0]),
        c.id: np.array([0.2, 0.6, 0.6**0.5]),
    }
    assert newest_of_groups([a, b, c], vectors, 0.5) == {c.id: [a.id, b.id]}
    assert newest_of_groups([a, b, c], vectors, 0.5, "complete") == {a.id: [b.id]}
