"""Catch-up in a process of its own (setting ``catch_up_process``; memvault.ingest.
catchup_process): a real child interpreter embeds what deferred writes left, on the same
SQLite file, while the writing process goes on; killed with SIGKILL it is started again and
nothing is lost; one whose embedder is not the vault's is refused; closing the vault stops it;
a vault it cannot rebuild (an embedder handed in) catches up in its thread, as before."""

from __future__ import annotations

import logging
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memvault import MemVault
from memvault.embed import HashingEmbedder
from memvault.ingest.catchup_process import CatchUpProcess, CatchUpProcessError


def _notes(n: int, start: int = 0) -> list[dict[str, str]]:
    topics = ["the quarterly budget", "server costs", "the hiring plan", "office plants"]
    return [
        {"content": f"Meeting note {i}: we discussed {topics[i % 4]} and little else."}
        for i in range(start, start + n)
    ]


def _until(done: Callable[[], bool], timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if done():
            return True
        time.sleep(0.02)
    return done()


def _in_thread(*args: object, **kwargs: object) -> None:
    raise AssertionError("caught up in the writing process's thread")


@pytest.fixture
def hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A vault whose settings build the hashing embedder: the child builds the same one."""
    monkeypatch.setenv("MEMVAULT_EMBEDDER", "hashing")


@pytest.mark.usefixtures("hashing")
def test_deferred_writes_are_caught_up_by_a_process_of_their_own(tmp_path: Path) -> None:
    with MemVault.open(tmp_path / "v.db", catch_up_process=True) as vault:
        vault.vectors._catch_up = _in_thread  # nothing may be embedded in this process
        ids = vault.write_many(_notes(120), namespace="n", defer_vectors=True).episode_ids
        assert _until(lambda: vault.vectors_pending(namespace="n") == 0)
        child = vault.vectors._process._proc  # type: ignore[union-attr]
        assert child is not None and child.poll() is None and child.pid != os.getpid()
        assert len(vault.store.get_vectors("n", "episode", ids)) == 120
        assert vault.vectors._catchup is not None and vault.vectors._catchup.errors == 0
        hits = vault.recall("hiring plan", namespace="n", k=3)
        assert hits and "hiring plan" in hits[0].text
        # more writes: the same child, kept between namespaces and batches
        more = vault.write_many(_notes(30, 500), namespace="m", defer_vectors=True).episode_ids
        assert _until(lambda: vault.vectors_pending(namespace="m") == 0)
        assert vault.vectors._process._proc is child  # type: ignore[union-attr]
        assert len(vault.store.get_vectors("m", "episode", more)) == 30
    assert child.wait(timeout=30) == 0  # closing the vault stopped it


@pytest.mark.usefixtures("hashing")
def test_a_killed_catch_up_process_loses_nothing_and_is_started_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """SIGKILL mid catch-up: what it committed stays, the rest is caught up (by the thread,
    labelled in the log, for the namespace it was given) and the next deferred write starts
    a new process."""
    with (
        caplog.at_level(logging.WARNING),
        MemVault.open(tmp_path / "v.db", catch_up_process=True, catch_up_batch=8) as vault,
    ):
        first = vault.write_many(_notes(400), namespace="n", defer_vectors=True).episode_ids
        assert _until(lambda: vault.vectors._process is not None and vault.vectors._process._proc)
        child = vault.vectors._process._proc  # type: ignore[union-attr]
        assert child is not None
        assert _until(lambda: vault.vectors_pending(namespace="n") < 400)
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
        assert _until(lambda: vault.vectors_pending(namespace="n") == 0)
        assert "catch-up process fallback" in caplog.text
        vault.vectors._catch_up = _in_thread  # from here on, only a process may embed
        later = vault.write_many(_notes(5, 900), namespace="n", defer_vectors=True).episode_ids
        assert _until(lambda: vault.vectors_pending(namespace="n") == 0)
        again = vault.vectors._process._proc  # type: ignore[union-attr]
        assert again is not None and again.pid != child.pid
        assert vault.vectors._catchup is not None and vault.vectors._catchup.errors == 0
        got = vault.store.get_vectors("n", "episode", [*first, *later])
        assert len(got) == 405


def test_a_catch_up_process_whose_embedder_is_not_the_vaults_is_refused(tmp_path: Path) -> None:
    with MemVault.open(tmp_path / "v.db") as vault:
        settings = vault.settings.model_copy(update={"embedder": "hashing"})
    process = CatchUpProcess(settings, ("another-model", 3))
    with pytest.raises(CatchUpProcessError, match="embedder") as refused:
        process.run("n")
    assert "another-model" in str(refused.value)
    process.close()


@pytest.mark.usefixtures("hashing")
def test_closing_the_vault_stops_the_process_between_batches(tmp_path: Path) -> None:
    vault = MemVault.open(tmp_path / "v.db", catch_up_process=True, catch_up_batch=4)
    ids = vault.write_many(_notes(600), namespace="n", defer_vectors=True).episode_ids
    assert _until(lambda: vault.vectors_pending(namespace="n") < 600)
    child = vault.vectors._process._proc  # type: ignore[union-attr]
    assert child is not None
    vault.close()
    assert child.poll() is not None  # exited, not left running
    with MemVault.open(tmp_path / "v.db", catch_up_thread=False) as again:
        waiting = again.vectors_pending(namespace="n")
        have = len(again.store.get_vectors("n", "episode", ids))
        assert waiting + have == 600  # each memory either has its vector or still waits
        again.catch_up(namespace="n")
        assert len(again.store.get_vectors("n", "episode", ids)) == 600


@pytest.mark.usefixtures("hashing")
def test_a_vault_closed_while_its_process_starts_leaves_the_rest_waiting(tmp_path: Path) -> None:
    """`ingest --no-wait`: the vault closes right after its writes, while the catch-up
    process is still starting; closing does not wait for it to embed everything."""
    vault = MemVault.open(tmp_path / "v.db", catch_up_process=True, catch_up_batch=2)
    ids = vault.write_many(_notes(3000), namespace="n", defer_vectors=True).episode_ids
    vault.close()
    process = vault.vectors._process
    assert process is None  # given back with the vault
    with MemVault.open(tmp_path / "v.db", catch_up_thread=False) as again:
        waiting = again.vectors_pending(namespace="n")
        assert waiting > 0
        assert waiting + len(again.store.get_vectors("n", "episode", ids)) == 3000


def test_a_vault_given_its_embedder_catches_up_in_its_thread(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The process builds its parts from the settings; a vault handed an embedder object
    cannot be rebuilt there, so its thread catches up, and the log says so."""
    with (
        caplog.at_level(logging.WARNING),
        MemVault.open(
            tmp_path / "v.db", embedder=HashingEmbedder(), catch_up_process=True
        ) as vault,
    ):
        vault.write_many(_notes(40), namespace="n", defer_vectors=True)
        assert _until(lambda: vault.vectors_pending(namespace="n") == 0)
        assert vault.vectors._process is None
    assert "catching up in a thread" in caplog.text


@pytest.mark.usefixtures("hashing")
def test_an_in_memory_vault_catches_up_in_its_thread(caplog: pytest.LogCaptureFixture) -> None:
    """Another process would open a database of its own: the thread catches up, logged."""
    with caplog.at_level(logging.WARNING), MemVault.open(":memory:", catch_up_process=True) as v:
        v.write_many(_notes(40), namespace="n", defer_vectors=True)
        assert _until(lambda: v.vectors_pending(namespace="n") == 0)
        assert v.vectors._process is None
    assert "in-memory database" in caplog.text


def test_the_process_embeds_with_the_vaults_own_model(tmp_path: Path) -> None:
    """With the real model (MiniLM, as the settings build it): the child's vectors are the
    vectors the vault itself would make, and a deferred memory is found by meaning."""
    kitten = "My sister adopted a grey kitten called Pebble yesterday."
    with MemVault.open(tmp_path / "v.db", catch_up_process=True) as vault:
        vault.vectors._catch_up = _in_thread
        written = vault.write_many(
            [*_notes(20), {"content": kitten, "speaker": "Ana"}], namespace="n", defer_vectors=True
        )
        assert _until(lambda: vault.vectors_pending(namespace="n") == 0, timeout=180)
        rid = written.episode_ids[-1]
        theirs = vault.store.get_vectors("n", "episode", [rid])[rid]
        mine = vault.c.embedder.embed([kitten])[0]
        assert vault.c.embedder.name.startswith("all-MiniLM-L6-v2")
        assert float(theirs @ mine) > 0.9999
        hits = vault.recall("a new cat joined my sibling's family", namespace="n", k=3)
        assert hits[0].id == rid
