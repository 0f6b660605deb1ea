"""Ingest throughput with real embeddings, and the share of time spent beyond embedding,
for short chat turns and for long ones (~1,300 characters, as in long-memory benchmarks
where an assistant's answers run for paragraphs) in the same run. The long run includes the
chunk vectors of what the embedder would not read (docs/recall.md); ``long_chunking`` times
the same long texts embedded whole and their chunks alone, so the extra cost is stated.

Turns are generated here (a small made-up vocabulary of everyday talk, with first-person
statements so the rule extractor has work; a long turn strings several of them with
connecting sentences), written through the real write path in batches; the embedder is
wrapped to time its share.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ingest_model import _tokens, _waste, device_name, model_bound, reach, windows
from sharegpt import write_items

from memvault import MemVault

PEOPLE = ["Ana", "Bo", "Chen", "Dara", "Eli", "Farah", "Gus", "Hana"]
PLACES = ["Lisbon", "Oslo", "Kyoto", "Austin", "Nairobi", "Lima", "Hanoi", "Turin"]
THINGS = [
    "pottery",
    "trail running",
    "sourdough",
    "chess",
    "jazz piano",
    "birdwatching",
    "the new project",
    "a vintage camera",
    "the book club",
    "sea kayaking",
]
TEMPLATES = [
    "I live in {place} now and I love it.",
    "My manager is {person} since last spring.",
    "I prefer {thing} over most weekend plans.",
    "We talked about {thing} with {person}.",
    "Yesterday {person} showed me photos from {place}.",
    "I started {thing} a month ago.",
    "Do you remember what {person} said about {thing}?",
    "The trip to {place} was amazing!",
]


LINKS = [
    "That reminds me of something else worth mentioning here.",
    "Here is a longer answer with a few details you might find useful.",
    "On the practical side, it helps to plan ahead and keep notes as you go.",
    "Let me know if you want me to go into more depth on any of these points.",
]


def _sentence(rng: random.Random) -> str:
    return rng.choice(TEMPLATES).format(
        person=rng.choice(PEOPLE), place=rng.choice(PLACES), thing=rng.choice(THINGS)
    )


def _long(rng: random.Random, chars: int) -> str:
    parts: list[str] = []
    while sum(len(p) + 1 for p in parts) < chars:
        parts.append(_sentence(rng) if rng.random() < 0.6 else rng.choice(LINKS))
    return " ".join(parts)


def turns(n: int, seed: int = 7, *, chars: int = 0) -> list[dict]:
    """``n`` turns; ``chars`` > 0: each about that long."""
    rng = random.Random(seed)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    out = []
    for i in range(n):
        text = _long(rng, chars) if chars else _sentence(rng)
        out.append(
            {
                "content": f"{text} ({i})",
                "speaker": rng.choice(PEOPLE[:2]),
                "session_id": f"s{i // 25}",
                "occurred_at": start + timedelta(hours=i),
            }
        )
    return out


class Timed:
    def __init__(self, inner):  # type: ignore[no-untyped-def]
        self.inner, self.name, self.dim, self.seconds = inner, inner.name, inner.dim, 0.0

    def reach(self, texts):  # type: ignore[no-untyped-def]
        """What the model reads of each text (memvault.embed.port.reach): the inner one's."""
        return reach(self.inner, texts)

    def embed(self, texts):  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - t


def run(items: list[dict], batch: int, embedder: Timed, db: Path) -> dict:
    embedder.seconds = 0.0
    with MemVault.open(db, embedder=embedder) as vault:
        t = time.perf_counter()
        for s in range(0, len(items), batch):
            vault.write_many(items[s : s + batch], namespace="bench")
        total = time.perf_counter() - t
        stats = vault.stats(namespace="bench")
    return {
        "episodes": len(items),
        "mean_chars": round(sum(len(i["content"]) for i in items) / len(items)),
        "total_s": round(total, 2),
        "embedding_s": round(embedder.seconds, 2),
        "episodes_per_s": round(len(items) / total, 1),
        "beyond_embedding_share": round((total - embedder.seconds) / total, 4),
        "facts": stats["facts"],
        "entities": stats["entities"],
    }


TWO_CORE_BOUND = 30.0  # turns/s: one 256-token MiniLM pass ~6 GFLOP, 2 cores ~190 GFLOP/s


def deferred(items: list[dict], batch: int, embedder: Timed, db: Path) -> dict:
    """The bulk path: writes acknowledged before their vectors (defer_vectors), then catch-up
    alone (the in-process thread off, so the two rates are measured apart), and the last
    turn looked up by an exact phrase from its middle before any vector exists."""
    embedder.seconds = 0.0
    with MemVault.open(db, embedder=embedder, catch_up_thread=False) as vault:
        t = time.perf_counter()
        for s in range(0, len(items), batch):
            vault.write_many(items[s : s + batch], namespace="bench", defer_vectors=True)
        ack = time.perf_counter() - t
        ack_embedding = embedder.seconds
        words = items[-1]["content"].split()
        phrase = " ".join(words[len(words) // 2 : len(words) // 2 + 6])
        last_id = vault.episodes(namespace="bench", limit=1, offset=len(items) - 1)[0].id
        hits = vault.recall(phrase, namespace="bench", k=10)
        rank = next((n for n, h in enumerate(hits, 1) if h.id == last_id), None)
        pending = vault.vectors_pending(namespace="bench")
        embedder.seconds = 0.0
        inner = embedder.inner
        before = (getattr(inner, "tokens_read", 0), getattr(inner, "tokens_padded", 0))
        t = time.perf_counter()
        caught = vault.catch_up(namespace="bench")
        catch = time.perf_counter() - t
        tokens = _tokens(embedder.inner, vault.episodes(namespace="bench", limit=len(items)))
    return {
        "episodes": len(items),
        "mean_chars": round(sum(len(i["content"]) for i in items) / len(items)),
        "acknowledged_s": round(ack, 2),
        "acknowledged_per_s": round(len(items) / ack, 1),
        "acknowledged_embedding_s": round(ack_embedding, 2),  # facts' and entities' vectors
        "pending_after_writes": pending,
        "last_turn_rank_by_exact_phrase": rank,
        "catch_up_s": round(catch, 2),
        "catch_up_per_s": round(caught.embedded / catch, 1),
        "catch_up_chunks": caught.chunks,
        # the bound counts 256-token passes; a long turn costs more (its chunks): tokens say
        "catch_up_tokens": tokens,
        # of the tokens computed, the share that was padding (batches sorted by length)
        "catch_up_padding_waste": _waste(inner, before),
        "catch_up_tokens_per_s": round(tokens / catch) if tokens else None,
        "catch_up_share_of_2_core_bound": round(tokens / catch / (TWO_CORE_BOUND * 256), 3)
        if tokens
        else None,
    }


def acknowledged(items: list[dict], batch: int, embedder: Timed, db: Path, workers: int) -> dict:
    """The deferred writes alone with ``rule_workers`` = ``workers`` (no catch-up)."""
    with MemVault.open(db, embedder=embedder, catch_up_thread=False, rule_workers=workers) as v:
        t, cpu = time.perf_counter(), time.process_time()
        for s in range(0, len(items), batch):
            v.write_many(items[s : s + batch], namespace="bench", defer_vectors=True)
        took, cpu = time.perf_counter() - t, time.process_time() - cpu
    return {
        "rule_workers": workers,
        "acknowledged_per_s": round(len(items) / took, 1),
        # the writing process's own CPU (its workers' not counted): what no worker can take
        "writer_cpu_ms_per_turn": round(cpu / len(items) * 1000, 3),
    }


def end_to_end(
    items: list[dict],
    batch: int,
    embedder: Timed,
    db: Path,
    workers: int = 0,
    catch_up: int = 0,
    process: bool = False,
) -> dict:
    """What a user waits for: the writes (deferred) with the in-process catch-up thread
    embedding beside them, until the last vector is in. ``workers`` / ``catch_up``: the
    settings ``rule_workers`` and ``catch_up_batch`` (0: the default). ``process``: setting
    ``catch_up_process`` (the vault builds its own embedder from the settings, as the
    catch-up process does; both started and warm before the clock starts, as in the middle
    of a long import)."""
    given: dict = {"rule_workers": workers} if workers else {}
    if catch_up:
        given["catch_up_batch"] = catch_up
    given.update({"catch_up_process": True} if process else {"embedder": embedder})
    with MemVault.open(db, **given) as vault:
        if process:
            vault.write_many(items[:1], namespace="warm", defer_vectors=True)
            vault.c.embedder.embed(["warm up the model"])
            started = time.perf_counter()  # until the catch-up process has done it
            while vault.vectors_pending(namespace="warm") and time.perf_counter() - started < 300:
                time.sleep(0.05)
        t = time.perf_counter()
        for s in range(0, len(items), batch):
            vault.write_many(items[s : s + batch], namespace="bench", defer_vectors=True)
        ack = time.perf_counter() - t
        vault.wait_for_vectors(namespace="bench")
        total = time.perf_counter() - t
        left = vault.vectors_pending(namespace="bench")
    return {
        "episodes": len(items),
        "rule_workers": vault.c.rule_workers,
        "catch_up_batch": vault.settings.catch_up_batch,
        "catch_up_process": process,
        "acknowledged_per_s": round(len(items) / ack, 1),
        "with_vectors_s": round(total, 2),
        "with_vectors_per_s": round(len(items) / total, 1),
        "pending_at_end": left,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=2000, help="short turns")
    parser.add_argument("--long", type=int, default=200, help="long turns (0: none)")
    parser.add_argument("--long-chars", type=int, default=1300)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument(
        "--deferred", type=int, default=1500, help="long turns written deferred (0: none)"
    )
    parser.add_argument("--only-deferred", action="store_true")
    parser.add_argument(
        "--rule-workers",
        type=int,
        default=0,
        help="also: the deferred turns written again with this many rule workers and with "
        "none, alternately three times (acknowledged rates only)",
    )
    parser.add_argument(
        "--real",
        type=int,
        default=0,
        help="with --rule-workers: also this many real ShareGPT turns (bench/sharegpt.py)",
    )
    parser.add_argument(
        "--variants",
        nargs="*",
        default=[],
        metavar="WORKERS:BATCH[:process]",
        help="with --end-to-end: also end to end with these rule_workers:catch_up_batch "
        "settings (0: the default), one after the other in the same run; ':process': with "
        "catch_up_process (catch-up in a process of its own)",
    )
    parser.add_argument(
        "--end-to-end",
        type=int,
        default=0,
        help="also: this many long turns written with the catch-up thread on, timed until "
        "the last vector is in, and the same model's bound on the same texts",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        probe = MemVault.open(Path(tmp) / "probe.db")
        timed = Timed(probe.c.embedder)
        probe.close()
        timed.embed(["warm up the model"])
        bulk = (
            deferred(
                turns(args.deferred, seed=11, chars=args.long_chars),
                args.batch,
                timed,
                Path(tmp) / "deferred.db",
            )
            if args.deferred
            else None
        )
        if args.only_deferred:
            args.episodes = args.long = 0
        e2e = bound = None
        workers: dict[str, list[dict]] = {}
        sets = {
            "long": turns(args.deferred, seed=11, chars=args.long_chars) if args.deferred else []
        }
        left_out = None  # real turns the write refuses (empty once normalised)
        if args.real:
            sets["real"], left_out = write_items(args.real)
        for name, items in sets.items():
            for n, w in enumerate(
                [1, args.rule_workers] * 3 if args.rule_workers and items else []
            ):
                db = Path(tmp) / f"workers-{name}{n}.db"
                workers.setdefault(name, []).append(acknowledged(items, args.batch, timed, db, w))
        if args.end_to_end:
            items = turns(args.end_to_end, seed=13, chars=args.long_chars)
            e2e = end_to_end(items, args.batch, timed, Path(tmp) / "e2e.db")
            for n, variant in enumerate(args.variants):
                w, c, *how = variant.split(":")
                db = Path(tmp) / f"e2e{n}.db"
                e2e.setdefault("variants", []).append(
                    end_to_end(
                        items,
                        args.batch,
                        timed,
                        db,
                        workers=int(w),
                        catch_up=int(c),
                        process=how == ["process"],
                    )
                )
            bound = model_bound(items, timed.inner)
            e2e["share_of_model_bound"] = round(e2e["with_vectors_per_s"] / bound["turns_per_s"], 3)
            if bulk:
                bulk["catch_up_share_of_model_bound"] = round(
                    bulk["catch_up_per_s"] / bound["turns_per_s"], 3
                )
        short = (
            run(turns(args.episodes), args.batch, timed, Path(tmp) / "short.db")
            if args.episodes
            else None
        )
        long = (
            run(turns(args.long, chars=args.long_chars), args.batch, timed, Path(tmp) / "long.db")
            if args.long
            else None
        )
        chunking = None
        if args.long:  # what reading long turns to the end costs (the same texts, embedded)
            texts = [i["content"] for i in turns(args.long, chars=args.long_chars)]
            parts = windows(timed.inner, texts)
            t0 = time.perf_counter()
            timed.inner.embed(texts)
            whole = time.perf_counter() - t0
            t0 = time.perf_counter()
            timed.inner.embed(parts)
            extra = time.perf_counter() - t0
            chunking = {
                "chunk_vectors_per_long_turn": round(len(parts) / len(texts), 2),
                "embed_s_turns": round(whole, 2),
                "embed_s_chunks": round(extra, 2),
                "extra_embedding_share": round(extra / whole, 3),
            }
    result = {
        "benchmark": "ingest",
        "batch": args.batch,
        "embedder": timed.name,
        "runtime": type(timed.inner).__name__,
        "device": device_name(timed.inner),
        "short": short,
        "long": long,
        "long_chunking": chunking,
        "deferred_long": bulk,
        "rule_workers": workers or None,  # long: generated turns; real: ShareGPT's
        "real_left_out": left_out,
        "end_to_end_long": e2e,
        "model_bound_long": bound,
        "goal_acknowledged_per_s": 100,
        "goal_catch_up_per_s": 15,
        "goal_beyond_embedding_share": 0.15,
        "goal_long_episodes_per_s": 100,
    }
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
