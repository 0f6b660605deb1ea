"""Cosines that do not move with the batch a text was embedded in.

ONNX Runtime (and torch) give one text embedded alone and beside others vectors that differ
in the last bits (~1e-8), and a vault whose turns were embedded by a catch-up running beside
the writer batches them as the timing fell. Unrounded, two copies of one history rank their
near ties apart, and two turns saying the same words apart. Every cosine recall reads is
kept to :data:`COSINE_DIGITS` decimals, and a list of the nearest is cut where the rounded
scores say, not where the last bits do.
"""

from __future__ import annotations

from collections.abc import Callable

Ranked = list[tuple[str, float]]

COSINE_DIGITS = 5


def steady(cosine: float) -> float:
    """A cosine to ``COSINE_DIGITS`` decimals."""
    return round(cosine, COSINE_DIGITS)


def nearest_steady(fetch: Callable[[int], Ranked], n: int) -> Ranked:
    """The ``n`` nearest that ``fetch(k)`` (best first, at most ``k``) finds, cut by rounded
    score: which of two cosines equal to five decimals an index put ``n``-th is the batch's
    doing, so every one tied with the ``n``-th stays. Asks for a quarter more than ``n`` (at
    least 8), and again for twice as many while the last one asked for still ties."""
    wide = n + max(8, n // 4)
    while True:
        ranked = fetch(wide)
        cut = steady_cut(ranked, n)
        if len(ranked) < wide or len(cut) < len(ranked):
            return cut
        wide *= 2


def steady_cut(ranked: Ranked, n: int) -> Ranked:
    """The first ``n`` of ``ranked`` by rounded score, and every one tied with the ``n``-th."""
    rounded = sorted(((i, steady(s)) for i, s in ranked), key=lambda kv: -kv[1])
    if len(rounded) <= n:
        return rounded
    last = rounded[n - 1][1] if n > 0 else float("inf")
    return [kv for kv in rounded if kv[1] >= last]
