"""bench/ingest.py's measures of the model itself: what the hardware gives it on the same
texts (its bound), the device, padding and tokens read."""

from __future__ import annotations

import time

from memvault.embed.port import reach
from memvault.ingest.chunking import chunks_of
from memvault.language.text import CHUNK_CHARS, tail_chunks

__all__ = ["_tokens", "_waste", "device_name", "model_bound", "reach", "windows"]


def windows(embedder, texts: list[str]) -> list[str]:  # type: ignore[no-untyped-def]
    """The chunk windows a write cuts of these texts: past what the embedder reads of each
    (memvault.ingest.chunking)."""
    flat = [" ".join(t.split()) for t in texts]
    long = [t for t in flat if len(t) > CHUNK_CHARS]
    read = reach(embedder, long) or [None] * len(long)
    return [p for t, r in zip(long, read, strict=True) for p in tail_chunks(t, read=r)]


def model_bound(items: list[dict], inner) -> dict:  # type: ignore[no-untyped-def]
    """The same model on the same texts (each turn and its chunks, one call): what the
    hardware gives this model with nothing of memvault around it."""
    contents = [i["content"] for i in items]
    texts = contents + windows(inner, contents)
    inner.embed(texts[:512])  # warm (a GPU compiles its kernels once)
    t = time.perf_counter()
    inner.embed(texts)
    took = time.perf_counter() - t
    out = {"turns_per_s": round(len(items) / took, 1), "texts": len(texts), "s": round(took, 2)}
    if hasattr(inner, "_embed_tokenized"):  # torch: sentence-transformers' own encode, same run
        model = inner._load()
        t = time.perf_counter()
        model.encode(texts, batch_size=inner._batch(), normalize_embeddings=True)
        out["encode_turns_per_s"] = round(len(items) / (time.perf_counter() - t), 1)
    return out


def device_name(inner) -> str:  # type: ignore[no-untyped-def]
    device = str(getattr(inner, "device", "cpu"))
    if device == "cuda":
        import torch

        return f"cuda: {torch.cuda.get_device_name(0)}"
    import os

    return f"cpu: {os.cpu_count()} cores"


def _waste(inner, before) -> float | None:  # type: ignore[no-untyped-def]
    read = getattr(inner, "tokens_read", 0) - before[0]
    padded = getattr(inner, "tokens_padded", 0) - before[1]
    return round(1 - read / padded, 4) if padded else None


def _tokens(embedder, episodes) -> int | None:  # type: ignore[no-untyped-def]
    """Tokens the embedder read for these episodes and their chunks (each cut at the
    model's 256-token limit)."""
    if not hasattr(embedder, "_load"):
        return None
    texts = [e.vector_text() for e in episodes]
    texts += [t for _, _, t in chunks_of(embedder, episodes, CHUNK_CHARS)]
    loaded = embedder._load()
    if isinstance(loaded, tuple):  # ONNX Runtime: (session, tokenizer)
        return sum(len(x.ids) for x in loaded[1].encode_batch(texts))
    encoded = loaded.tokenizer(texts, truncation=True, max_length=loaded.max_seq_length)
    return sum(len(ids) for ids in encoded["input_ids"])
