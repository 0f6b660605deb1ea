"""The approximate vector index of the SQLite store answers like exact search, through
writes, replaced vectors, deletes, a dream's merges, a reopen and another process's writes;
a saved index that belongs to another database is never trusted."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from memvault import FixedClock, MemVault
from memvault.config import IndexSettings
from memvault.embed import HashingEmbedder
from memvault.kg.model import Episode, content_hash
from memvault.kg.sqlite import SQLiteStore
from memvault.kg.store import Batch, VectorRecord

NS = "ann"
DIM = 24
T0 = datetime(2025, 1, 1, tzinfo=UTC)
# Under 1024 rows the index scans its own copy of the vectors: the tests below check that the
# copy follows the table exactly; one test walks the graph (its recall is measured at scale
# by bench/recall_latency.py)
APPROX = IndexSettings(ann_min_vectors=1)


def episodes(start: int, n: int, rng: np.random.Generator) -> Batch:
    eps, vecs = [], []
    for i in range(start, start + n):
        body = f"note {i}"
        e = Episode(
            namespace=NS,
            content=body,
            session_id=f"s{i // 20}",
            position=i % 20,
            content_hash=content_hash(NS, None, None, body),
            occurred_at=T0 + timedelta(minutes=i),
            created_at=T0,
        )
        eps.append(e)
        vecs.append(VectorRecord("episode", e.id, rng.standard_normal(DIM).astype(np.float32)))
    return Batch(namespace=NS, episodes=eps, vectors=vecs)


def same_answers(approx: SQLiteStore, exact: SQLiteStore, rng: np.random.Generator) -> None:
    for _ in range(20):
        q = rng.standard_normal(DIM).astype(np.float32)
        got = approx.vector_topk(NS, "episode", q, 10)
        want = exact.vector_topk(NS, "episode", q, 10)
        assert [i for i, _ in got] == [i for i, _ in want]
        assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5)
    assert approx._vectors.mode(NS, "episode") == "approximate"
    assert exact._vectors.mode(NS, "episode") == "exact"


def same_vectors(approx: SQLiteStore, exact: SQLiteStore, ids: list[str]) -> None:
    """Vectors read back: the approximate store answers from its open index, the exact one
    from the table; both hold the same, deleted records in neither."""
    got, want = approx.get_vectors(NS, "episode", ids), exact.get_vectors(NS, "episode", ids)
    assert got.keys() == want.keys() and len(want) > 0
    assert all(np.array_equal(got[i], want[i]) for i in want)


def test_the_approximate_index_follows_writes_replacements_deletes_and_a_reopen(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "v.db"
    rng = np.random.default_rng(7)
    caplog.set_level(logging.INFO, logger="memvault.kg.sqlite.vectors")
    approx, exact = SQLiteStore(path, index=APPROX), SQLiteStore(path)
    first = episodes(0, 300, rng)
    approx.apply(first)
    same_answers(approx, exact, rng)
    approx.apply(episodes(300, 100, rng))  # appended
    moved = [
        VectorRecord("episode", e.id, rng.standard_normal(DIM).astype(np.float32))
        for e in first.episodes[:40]
    ]
    approx.apply(Batch(namespace=NS, vectors=moved))  # replaced
    approx.apply(Batch(namespace=NS, deletes=[("episode", e.id) for e in first.episodes[40:90]]))
    same_answers(approx, exact, rng)
    ids = [e.id for e in first.episodes]
    same_vectors(approx, exact, ids)
    assert len(approx.get_vectors(NS, "episode", ids)) == 250  # 50 deleted
    approx.close()

    # a new process loads the saved index and catches up with what was written since
    exact.apply(episodes(400, 30, rng))
    exact.apply(Batch(namespace=NS, deletes=[("episode", e.id) for e in first.episodes[90:95]]))
    assert [p.suffix for p in (tmp_path / "v.db-ann").iterdir()] == [".usearch"]
    reopened = SQLiteStore(path, index=APPROX)
    same_answers(reopened, exact, rng)
    same_vectors(reopened, exact, ids)
    builds = [r for r in caplog.records if "building the vector index" in r.getMessage()]
    assert len(builds) == 1  # built once; the reopen loaded the saved file
    reopened.close()
    exact.close()


def test_a_saved_index_of_another_database_is_not_trusted(tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    one = SQLiteStore(tmp_path / "one.db", index=APPROX)
    one.apply(episodes(0, 200, rng))
    one.vector_topk(NS, "episode", rng.standard_normal(DIM), 5)
    one.close()
    other = SQLiteStore(tmp_path / "two.db", index=APPROX)
    other.apply(episodes(0, 200, np.random.default_rng(12)))  # same ids' shapes, other vectors
    other.apply(episodes(200, 60, np.random.default_rng(13)))  # seq beyond the stranger's
    other.close()
    shutil.rmtree(tmp_path / "two.db-ann", ignore_errors=True)
    shutil.copytree(tmp_path / "one.db-ann", tmp_path / "two.db-ann")
    approx, exact = SQLiteStore(tmp_path / "two.db", index=APPROX), SQLiteStore(tmp_path / "two.db")
    same_answers(approx, exact, rng)
    approx.close()
    exact.close()


WRITER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from memvault.kg.sqlite import SQLiteStore
    from memvault.kg.store import Batch, VectorRecord
    sys.path.insert(0, sys.argv[2])
    from test_ann import episodes, NS, DIM

    store = SQLiteStore(sys.argv[1])
    rng = np.random.default_rng(5)
    batch = episodes(1000, 50, rng)
    store.apply(batch)
    store.apply(Batch(namespace=NS, deletes=[("episode", batch.episodes[0].id)]))
    target = np.zeros(DIM, dtype=np.float32)
    target[0] = 1.0
    moved = VectorRecord("episode", batch.episodes[1].id, target)
    store.apply(Batch(namespace=NS, vectors=[moved]))
    print(batch.episodes[0].id, batch.episodes[1].id)
    store.close()
    """
)


def test_another_process_writes_are_seen(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    rng = np.random.default_rng(3)
    reader = SQLiteStore(path, index=APPROX)
    reader.apply(episodes(0, 200, rng))
    target = np.zeros(DIM, dtype=np.float32)
    target[0] = 1.0
    reader.vector_topk(NS, "episode", target, 5)  # the index is built before the writer runs
    done = subprocess.run(
        [sys.executable, "-c", WRITER, str(path), str(Path(__file__).parent)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    deleted, moved = done.stdout.split()
    top = reader.vector_topk(NS, "episode", target, 300)
    assert top[0][0] == moved and top[0][1] == pytest.approx(1.0, abs=1e-5)
    assert deleted not in {i for i, _ in top}
    assert len(top) == 249
    reader.close()


def test_a_dream_s_merges_reach_the_approximate_index_and_nothing_is_deleted(
    tmp_path: Path,
) -> None:
    path = tmp_path / "d.db"
    now = datetime(2025, 6, 1, tzinfo=UTC)

    def compare(vault: MemVault) -> int:
        q = vault.c.embedder.embed(["surfing in Ericeira"])[0]
        approx = vault.store.vector_topk("default", "episode", q, 100)
        exact = SQLiteStore(path).vector_topk("default", "episode", q, 100)
        # every vector, so the same set; repeated notes embed alike, so ties may swap places
        assert {i for i, _ in approx} == {i for i, _ in exact}
        assert [s for _, s in approx] == pytest.approx([s for _, s in exact], abs=1e-5)
        return len(approx)

    with MemVault.open(
        path, embedder=HashingEmbedder(), clock=FixedClock(now), index={"ann_min_vectors": 1}
    ) as vault:
        for day in range(8):
            vault.write(
                "I really enjoy surfing in Ericeira on weekends!",
                speaker="Maya",
                session_id=f"s{day}",
                now=now - timedelta(days=30 - day),
            )
            vault.write(f"day {day}: the garden needs water", session_id=f"s{day}")
        written = compare(vault)
        merged = vault.dream(apply=True, force=True)
        assert merged.report["stages"]["consolidate"]["episodes_merged"] > 0
        assert compare(vault) == written  # merged-away episodes are retired, still indexed
        later = now + timedelta(days=60)  # retired records are history: no dream deletes them
        vault.dream(apply=True, force=True, now=later)
        assert compare(vault) == written


def test_the_graph_walk_finds_what_exact_search_finds_after_deletes_and_replacements(
    tmp_path: Path,
) -> None:
    """3,000 clustered vectors (as embeddings are): above the scan limit, so the HNSW graph
    is walked; removed and replaced nodes must not cut it apart."""
    path = tmp_path / "g.db"
    rng = np.random.default_rng(21)
    centres = rng.standard_normal((40, DIM))
    approx, exact = SQLiteStore(path, index=APPROX), SQLiteStore(path)
    batch = episodes(0, 3000, rng)
    for v in batch.vectors:
        v.vector[:] = centres[rng.integers(0, 40)] + 0.5 * v.vector
    approx.apply(batch)
    approx.vector_topk(NS, "episode", centres[0], 5)
    approx.apply(Batch(namespace=NS, deletes=[("episode", e.id) for e in batch.episodes[:500]]))
    moved = [
        VectorRecord("episode", e.id, centres[rng.integers(0, 40)] + 0.5 * rng.standard_normal(DIM))
        for e in batch.episodes[500:700]
    ]
    approx.apply(Batch(namespace=NS, vectors=moved))
    found = 0
    for _ in range(100):
        q = centres[rng.integers(0, 40)] + 0.3 * rng.standard_normal(DIM)
        got = {i for i, _ in approx.vector_topk(NS, "episode", q, 10)}
        found += len(got & {i for i, _ in exact.vector_topk(NS, "episode", q, 10)})
    assert approx._vectors.mode(NS, "episode") == "approximate"
    assert found / 1000 >= 0.95
    approx.close()
    exact.close()


def test_the_index_is_built_off_the_request_path_and_loaded_by_the_next_process(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """prepare_search (the dream's worker, bulk ingest) builds and saves the index, so no
    recall pays for it: a new process loads it instead of building."""
    path = tmp_path / "v.db"
    rng = np.random.default_rng(3)
    small = SQLiteStore(path, index=IndexSettings(ann_min_vectors=500))
    small.apply(episodes(0, 100, rng))
    assert small.prepare_search(NS)["episode"] == "exact"  # below the threshold
    small.apply(episodes(100, 500, rng))
    assert small.prepare_search(NS)["episode"] == "approximate"
    assert small._vectors.mode(NS, "episode") == "approximate"  # before any search
    small.close()
    caplog.set_level(logging.INFO, logger="memvault.kg.sqlite.vectors")
    again = SQLiteStore(path, index=IndexSettings(ann_min_vectors=500))
    again.vector_topk(NS, "episode", rng.standard_normal(DIM).astype(np.float32), 10)
    assert again._vectors.mode(NS, "episode") == "approximate"
    assert not any("building the vector index" in r.message for r in caplog.records)
    again.close()


def test_a_process_that_searched_first_can_still_load_the_onnx_embedder(tmp_path: Path) -> None:
    """ONNX Runtime loaded after usearch crashed the process (a segfault in libstdc++): a
    worker that searches stored vectors before it embeds anything must survive."""
    script = textwrap.dedent(
        """
        import sys
        import numpy as np
        from memvault.config import IndexSettings
        from memvault.kg.sqlite import SQLiteStore
        store = SQLiteStore(sys.argv[1], index=IndexSettings(ann_min_vectors=1))
        store.vector_topk("ns", "episode", np.ones(4, dtype=np.float32), 1)  # no index yet
        from memvault.kg.sqlite import ann
        ann.Ann("ns", "episode", 4)
        import onnxruntime
        print(onnxruntime.get_device())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "v.db")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.strip() == "CPU"
