"""Reciprocal rank fusion: each channel's ranking adds weight / (k + rank)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def rrf(
    channels: Mapping[str, Sequence[K]], weights: Mapping[str, float], k: float = 60.0
) -> dict[K, float]:
    fused: dict[K, float] = {}
    for name, ranked in channels.items():
        w = weights.get(name, 1.0)
        for rank, key in enumerate(ranked, start=1):
            fused[key] = fused.get(key, 0.0) + w / (k + rank)
    return fused
