"""The offline rules of a large write batch in worker processes (``rule_workers``,
memvault.llm.workers): the same memories, entities and facts as in the writing process, a
worker killed between batches is replaced, and a worker that dies mid-batch hands the batch
back to the writing process, which finishes it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder
from memvault.llm.offline import OfflineProvider
from memvault.llm.prompts import Extraction, extract_v1
from memvault.llm.workers import MIN_BATCH, run_pure, shared
from memvault.persona import rules as persona_rules

T0 = datetime(2025, 3, 1, 9, tzinfo=UTC)
SAYS = [
    "I live in Lisbon now and I work at Helio Labs with my manager Tobias Klein.",
    "My sister Lena moved to Porto; I love sourdough and I hate early meetings.",
    'We talked about the film called "Inception" with Bo at the Oslo office.',
    "I started at Nimbus Freight last week. My favorite food is ramen.",
    "Honestly nothing much today, just a long walk by the river.",
]


def _turns(n: int) -> list[dict[str, Any]]:
    return [
        {
            "content": f"{SAYS[i % len(SAYS)]} (note {i})",
            "speaker": "Ana" if i % 3 else "assistant",
            "occurred_at": T0 + timedelta(hours=i),
            "session_id": f"s{i // 20}",
        }
        for i in range(n)
    ]


def _written(tmp_path: Path, name: str, workers: int) -> dict[str, Any]:
    with MemVault.open(
        tmp_path / f"{name}.db",
        embedder=HashingEmbedder(),
        clock=FixedClock(T0 + timedelta(days=30)),
        rule_workers=workers,
        catch_up_thread=False,
    ) as vault:
        vault.write_many(_turns(3 * MIN_BATCH), namespace="n", defer_vectors=True)
        facts = vault.facts(namespace="n", limit=10_000)
        return {
            "facts": sorted((f.subject, f.predicate, f.object) for f in facts),
            "stats": {k: vault.stats(namespace="n")[k] for k in ("episodes", "entities")},
            "attitudes": sorted(a["statement"] for a in vault.attitudes(namespace="n")),
        }


def test_workers_extract_what_the_writing_process_extracts(tmp_path: Path) -> None:
    here = _written(tmp_path, "here", 1)
    pool = shared(2)
    there = _written(tmp_path, "there", 2)
    assert pool._procs and all(p.poll() is None for p in pool._procs)  # they ran
    assert there == here
    assert here["facts"] and here["stats"]["entities"] > 0  # something to compare


def test_the_persona_rules_of_a_batch_run_in_the_workers_too() -> None:
    """The write path's second set of rules (attitudes and skills) goes to the same workers:
    each text's drafts as the writing process reads them, in order; a small batch stays."""
    texts = [{"text": f"{SAYS[i % len(SAYS)]} I use Python daily. ({i})"} for i in range(40)]
    there = run_pure(persona_rules.read, texts, 2)
    assert there == [persona_rules.read(t) for t in texts]
    assert any(drafts for drafts, _ in there) and any(uses for _, uses in there)
    assert run_pure(persona_rules.read, texts[: MIN_BATCH - 1], 2) is None  # here instead


def test_a_worker_killed_between_batches_is_replaced(tmp_path: Path) -> None:
    pool = shared(2)
    _written(tmp_path, "first", 2)
    victim = pool._procs[0]
    victim.kill()
    victim.wait()
    again = _written(tmp_path, "again", 2)
    assert victim not in pool._procs and all(p.poll() is None for p in pool._procs)
    assert again == _written(tmp_path, "serial", 1)


PARENT = "MEMVAULT_TEST_RULES_PARENT"


def dies_in_a_worker(inputs: Mapping[str, Any]) -> Extraction:
    """A handler that kills any process but the test's own (a worker crashing mid-batch)."""
    if os.environ.get(PARENT) != str(os.getpid()):
        os._exit(3)
    return Extraction()


def test_a_worker_dying_mid_batch_hands_the_batch_back(monkeypatch: Any) -> None:
    monkeypatch.setenv(PARENT, str(os.getpid()))
    shared(2).close()  # fresh workers, started with the variable set
    prompts = [extract_v1(f"text {i}", speaker="Ana", subject_hint="user") for i in range(40)]
    rules = OfflineProvider({prompts[0].name: dies_in_a_worker}, workers=2)
    answers = rules.complete_many(prompts, call_site="ingest.extract")
    assert answers == [Extraction()] * 40  # all answered, here
    assert rules.usage.snapshot()["ingest.extract"]["calls"] == 40
    assert shared(2)._procs == []  # stopped; the next batch starts fresh ones


def test_how_many_workers_the_setting_means() -> None:
    from memvault.llm.workers import workers_for

    cores = os.cpu_count() or 1
    assert workers_for(3) == 3 and workers_for(1) == 1
    assert workers_for(0, server=True) == 1  # a server's processes share the machine
    assert workers_for(0) == (min(cores - 1, 8) if cores >= 4 else 1)
