"""Dream runtime on the offline provider for one namespace of N facts, and LLM calls and
tokens per dream stage with a model configured (litellm ``mock_response``, no network).

Setup writes facts straight through the store port: N facts over N/10 subjects, a quarter
of them on single-valued predicates (so some conflict), and N/4 episodes with random unit
vectors in 50 sessions, a year old (so decay and TTL have work). Each size is timed twice:
the dry run (plan only) and apply. The ratio t(largest) / t(smallest) shows how runtime
grows with size.

    .venv/bin/python bench/dream.py --facts 10000 100000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder
from memvault.kg.model import Entity, Episode, Fact, Session, content_hash
from memvault.kg.store import Batch, VectorRecord

NS = "bench"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
PREDICATES = ["likes", "visited", "knows", "owns", "lives_in", "works_at"]


def fill(vault: MemVault, n_facts: int, rng: random.Random) -> None:
    t0 = NOW - timedelta(days=365)
    dim = vault.c.embedder.dim
    subjects = [
        Entity(namespace=NS, name=f"person {i}", created_at=t0, last_seen_at=t0)
        for i in range(max(n_facts // 10, 1))
    ]
    objects = [
        Entity(namespace=NS, name=f"thing {i}", created_at=t0, last_seen_at=t0)
        for i in range(max(n_facts // 20, 1))
    ]
    sessions = [Session(namespace=NS, id=f"s{i}", started_at=t0, last_at=t0) for i in range(50)]
    vault.store.apply(Batch(namespace=NS, entities=subjects + objects, sessions=sessions))
    vectors = np.random.default_rng(7).standard_normal((n_facts // 4, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for start in range(0, n_facts // 4, 5000):
        eps = []
        for i in range(start, min(n_facts // 4, start + 5000)):
            body = f"episode {i} about person {i % len(subjects)}"
            at = t0 + timedelta(minutes=i)
            eps.append(
                Episode(
                    namespace=NS,
                    content=body,
                    session_id=f"s{i % 50}",
                    position=i // 50,
                    content_hash=content_hash(NS, f"s{i % 50}", None, body),
                    occurred_at=at,
                    created_at=at,
                )
            )
        vecs = [VectorRecord("episode", e.id, vectors[start + j]) for j, e in enumerate(eps)]
        vault.store.apply(Batch(namespace=NS, episodes=eps, vectors=vecs))
    for start in range(0, n_facts, 10000):
        facts = []
        for i in range(start, min(n_facts, start + 10000)):
            s = subjects[rng.randrange(len(subjects))]
            o = objects[rng.randrange(len(objects))]
            p = rng.choice(PREDICATES)
            at = t0 + timedelta(days=rng.randrange(300))
            facts.append(
                Fact(
                    namespace=NS,
                    subject_id=s.id,
                    subject=s.name,
                    predicate=p,
                    object=o.name,
                    object_id=o.id,
                    statement=f"{s.name} {p} {o.name}",
                    valid_at=at,
                    created_at=at,
                    source_session_ids=[f"s{i % 50}"],
                )
            )
        vault.store.apply(Batch(namespace=NS, facts=facts))


def timed_dream(path: Path, n: int, llm: object | None = None) -> dict[str, object]:
    extra = {"llm": llm} if llm is not None else {}
    with MemVault.open(
        path,
        embedder=HashingEmbedder(),
        clock=FixedClock(NOW),
        sqlite_synchronous="NORMAL",
        **extra,
    ) as vault:
        started = time.perf_counter()
        preview = vault.dream(namespace=NS, force=True)
        plan_s = time.perf_counter() - started
        if llm is not None:
            return {
                "llm": preview.report["llm"],
                "conflicts": preview.report["stages"]["signal"]["conflict_count"],
            }
        started = time.perf_counter()
        done = vault.dream(namespace=NS, force=True, apply=True)
        apply_s = time.perf_counter() - started
    return {
        "facts": n,
        "dry_run_s": round(plan_s, 2),
        "apply_s": round(apply_s, 2),
        "changes": done.report["changes"],
        "applied": done.applied.applied if done.applied else 0,
        "to_review": done.report["to_review"],
        "stage_s": done.report["timings_s"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--facts", type=int, nargs="+", default=[10_000, 100_000])
    args = parser.parse_args()
    rng = random.Random(5)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.facts:
            path = Path(tmp) / f"dream-{n}.db"
            with MemVault.open(path, embedder=HashingEmbedder(), sqlite_synchronous="NORMAL") as v:
                fill(v, n, rng)
            runs.append(timed_dream(path, n))
            print(json.dumps(runs[-1]), file=sys.stderr)
        # LLM calls per stage with a model configured: the smallest size, mock answers
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        from memvault.llm import LiteLLMProvider

        mock = json.dumps({"verdicts": [], "insights": ["x"], "gaps": []})
        n = args.facts[0]
        path = Path(tmp) / "llm.db"
        with MemVault.open(path, embedder=HashingEmbedder(), sqlite_synchronous="NORMAL") as v:
            fill(v, n, random.Random(5))
        llm_run = timed_dream(path, n, LiteLLMProvider("gpt-4o-mini", mock_response=mock))
    first, last = runs[0], runs[-1]
    print(
        json.dumps(
            {
                "benchmark": "dream",
                "provider": "offline",
                "runs": runs,
                "ratio_largest_vs_smallest": {
                    "size": round(last["facts"] / first["facts"], 1),  # type: ignore[operator]
                    "dry_run": round(last["dry_run_s"] / first["dry_run_s"], 2),  # type: ignore[operator]
                    "apply": round(last["apply_s"] / first["apply_s"], 2),  # type: ignore[operator]
                },
                "with_model": {"facts": n, "model": "gpt-4o-mini (mock_response)", **llm_run},
                "goal_s": {"10000": 10, "100000": 120},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
