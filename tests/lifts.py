"""One history written to two vaults that differ in one signal's weight, and one question
asked of both: what a lift's tests compare (the signal on against off by name)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

from memvault import FixedClock, Hit, MemVault
from memvault.embed.onnx import OnnxEmbedder
from tests.conftest import T0


def asked_on_and_off(
    where: Path,
    embedder: OnnxEmbedder,
    clock: FixedClock,
    signal: str,
    weight: float,
    said: Sequence[tuple[str, str]],
    question: str,
) -> dict[float, list[Hit]]:
    """The top 10 for ``question`` with ``signal`` at ``weight`` and at 0, keyed by weight;
    ``said`` as (speaker, text), five days apart, each in a session of its own, asked 60
    days after the first."""
    out = {}
    for w in (weight, 0.0):
        vault = MemVault.open(
            where / f"{signal}-{w}-{len(question)}.db",
            embedder=embedder,
            clock=clock,
            recall={"channel_weights": {signal: w}},
        )
        for n, (speaker, text) in enumerate(said):
            at = T0 + timedelta(days=5 * n)
            vault.write(text, speaker=speaker, session_id=f"s{n}", occurred_at=at)
        out[w] = vault.recall(question, k=10, now=T0 + timedelta(days=60))
        vault.close()
    return out
