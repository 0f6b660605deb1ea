"""The CUDA path, checked on a machine with an NVIDIA GPU (CI has none): which runtime and
device ``embedder_device=auto`` picks, how close its fp16 vectors come to the CPU's fp32
ones, that a write deferred there is found by meaning once catch-up has run on the GPU, and
that ONNX Runtime's CPU build refuses ``cuda`` with what to do. Prints JSON; exits 1 when a
check fails. Run by ``bench/gpu_ingest.sh`` (docs/benchmarks.md)."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from memvault import MemVault
from memvault.bootstrap import build_embedder, load_settings
from memvault.embed import SentenceTransformerEmbedder
from memvault.errors import EmbeddingError

TEXTS = [
    "My sister Lena moved to Porto last spring and opened a bakery.",
    "I switched teams at work: I now manage the payments group.",
    "We adopted a rescue greyhound called Pixel in March.",
    "Honestly the conference talk on vector databases was too long.",
]


def main() -> int:
    out: dict = {}
    failed: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        auto = build_embedder(load_settings(data_dir=Path(tmp)))
        gpu = auto.embed(TEXTS)
        out["auto_runtime"] = type(auto).__name__
        out["auto_device"] = getattr(auto, "device", "?")
        cpu = SentenceTransformerEmbedder(device="cpu").embed(TEXTS)
        out["cosine_to_cpu_fp32_min"] = round(float(np.min(np.sum(gpu * cpu, axis=1))), 5)
        if out["auto_device"] != "cuda":
            failed.append("auto did not pick the GPU")
        if out["cosine_to_cpu_fp32_min"] < 0.999:
            failed.append("GPU vectors differ from the CPU's")
        try:
            refused = build_embedder(
                load_settings(data_dir=Path(tmp), embedder_runtime="onnx", embedder_device="cuda")
            )
            refused.embed(["x"])
            out["onnx_cuda"] = "ran (onnxruntime-gpu installed)"
        except EmbeddingError as exc:
            out["onnx_cuda"] = f"refused: {exc}"
        with MemVault.open(Path(tmp) / "v.db", catch_up_thread=False) as vault:
            vault.write_many(
                [{"content": t, "speaker": "user"} for t in TEXTS],
                namespace="gpu",
                defer_vectors=True,
            )
            pending = vault.vectors_pending(namespace="gpu")
            caught = vault.catch_up(namespace="gpu")
            hits = vault.recall("what kind of dog did we get?", namespace="gpu", k=1)
            out["deferred_pending"] = pending
            out["caught_up"] = caught.embedded
            out["recall_by_meaning_top"] = hits[0].text if hits else None
            if not hits or "greyhound" not in hits[0].text:
                failed.append("recall by meaning after catch-up on the GPU")
            out["embedder_recorded"] = vault.stats(namespace="gpu").get("embedder")
    out["failed"] = failed
    json.dump(out, sys.stdout, indent=2, default=str)
    print()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
