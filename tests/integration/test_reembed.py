"""`reembed`: a vault whose episode vectors were computed with the speaker's name (before
docs/decisions/0009) gets vectors of what was said; a dry run changes nothing, a second run
gives the same vectors, an embedder of another dimension is refused before any write, and an
interrupted run is finished by the next without computing any vector twice."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from memvault import FixedClock, MemVault
from memvault.cli.main import app
from memvault.embed import HashingEmbedder
from memvault.errors import InvalidInputError
from memvault.ingest.reembed import PENDING, reembed
from memvault.kg.model import Episode
from memvault.kg.store import Batch, VectorRecord

TURNS = [
    ("Maya", "I live in Berlin and I work at Helio Labs."),
    ("Assistant", "Noted: Berlin and Helio Labs."),
    ("Maya", "We adopted a cat named Tofu."),
]


def _old_vault(vault: MemVault) -> list[Episode]:
    """Written, then given the vectors the previous version computed (speaker: text)."""
    for speaker, text in TURNS:
        vault.write(text, speaker=speaker, namespace="maya")
    episodes = [r for r in vault.store.iter_records("maya") if isinstance(r, Episode)]
    old = vault.c.embedder.embed([e.index_text() for e in episodes])
    vault.store.apply(
        Batch(
            namespace="maya",
            vectors=[VectorRecord("episode", e.id, old[i]) for i, e in enumerate(episodes)],
        )
    )
    return episodes


def _vectors(vault: MemVault, episodes: list[Episode]) -> np.ndarray:
    got = vault.store.get_vectors("maya", "episode", [e.id for e in episodes])
    return np.stack([got[e.id] for e in episodes])


def test_dry_run_counts_and_apply_recomputes_the_episode_vectors(vault: MemVault) -> None:
    episodes = _old_vault(vault)
    before = _vectors(vault, episodes)
    preview = vault.reembed(namespace="maya")
    assert not preview.applied and preview.counts["episode"] == len(TURNS)
    assert preview.counts.get("fact", 0) >= 1  # "Maya lives in Berlin" was extracted
    assert np.array_equal(_vectors(vault, episodes), before)  # a dry run writes nothing

    done = vault.reembed(namespace="maya", apply=True)
    assert done.applied
    after = _vectors(vault, episodes)
    expected = vault.c.embedder.embed([e.content for e in episodes])
    assert np.allclose(after, expected, atol=1e-6)
    assert not np.allclose(after, before, atol=1e-3)  # the speaker's name is gone
    # the records themselves are untouched, and a second run gives the same vectors
    assert [r for r in vault.store.iter_records("maya") if isinstance(r, Episode)] == episodes
    vault.reembed(namespace="maya", apply=True)
    assert np.array_equal(_vectors(vault, episodes), after)
    assert vault.recall("cat named Tofu", namespace="maya", k=1)[0].text == TURNS[2][1]
    facts = vault.facts(namespace="maya")
    stored = vault.store.get_vectors("maya", "fact", [f.id for f in facts])
    for f in facts:  # a fact's vector leaves out the subject it opens with
        assert f.vector_text() != f.statement and not f.vector_text().startswith("Maya")
        assert np.allclose(stored[f.id], vault.c.embedder.embed([f.vector_text()])[0], atol=1e-6)


def test_a_fact_vector_text_drops_only_an_opening_subject(vault: MemVault) -> None:
    vault.add_fact(subject="Bruno", predicate="partner", object="Eli", namespace="maya")
    (fact,) = vault.facts(namespace="maya", subject="Bruno")
    assert (
        fact.vector_text() == fact.statement.removeprefix("Bruno's").removeprefix("Bruno").strip()
    )
    other = fact.model_copy(update={"statement": "Eli is Bruno's partner"})
    assert other.vector_text() == "Eli is Bruno's partner"


def test_an_embedder_of_another_dimension_is_refused_before_any_write(
    tmp_path: Path, clock: FixedClock
) -> None:
    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder(), clock=clock) as vault:
        episodes = _old_vault(vault)
        before = _vectors(vault, episodes)
    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder(dim=64), clock=clock) as vault:
        with pytest.raises(InvalidInputError, match="384 dimensions") as err:
            vault.reembed(namespace="maya", apply=True)
        assert "export" in (err.value.hint or "")
        assert np.array_equal(_vectors(vault, episodes), before)


def test_the_command_previews_then_applies(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    env = {"MEMVAULT_EMBEDDER": "hashing", "MEMVAULT_DATA_DIR": ""}
    runner = CliRunner()
    for speaker, text in TURNS:
        runner.invoke(app, ["--db", str(db), "write", text, "--speaker", speaker, "-n", "maya"],
                      env=env)  # fmt: skip
    dry = runner.invoke(app, ["--db", str(db), "reembed", "-n", "maya", "--json"], env=env)
    assert dry.exit_code == 0, dry.stdout
    body = json.loads(dry.stdout)
    assert body["applied"] is False and body["counts"]["episode"] == 3 and body["resumed"] == 0
    long = "A long note about the garden and the plans for it. " * 60  # past one vector
    runner.invoke(app, ["--db", str(db), "write", long, "-n", "maya"], env=env)
    done = runner.invoke(app, ["--db", str(db), "reembed", "-n", "maya", "--apply"], env=env)
    assert done.exit_code == 0 and "4 episodes" in done.stdout and "re-embedded" in done.stdout
    assert " chunks" in done.stdout, done.stdout  # the long note's chunk vectors
    unknown = runner.invoke(app, ["--db", str(db), "reembed", "-n", "mayaa", "--apply"], env=env)
    assert unknown.exit_code == 2 and "namespaces: maya" in unknown.stderr


class _Dies:
    """An embedder that stops the process (an exception, between committed batches) after
    ``calls`` embeddings, counting the texts it embedded."""

    def __init__(self, inner: HashingEmbedder, calls: int | None) -> None:
        self.inner, self.calls, self.texts = inner, calls, 0
        self.name, self.dim, self.fallback = inner.name, inner.dim, False

    def embed(self, texts: list[str]) -> np.ndarray:
        if self.calls is not None:
            if self.calls == 0:
                raise KeyboardInterrupt
            self.calls -= 1
        self.texts += len(texts)
        return self.inner.embed(texts)


def test_an_interrupted_run_is_finished_by_the_next_without_recomputing_a_vector(
    vault: MemVault,
) -> None:
    for i in range(40):
        vault.write(f"Note {i}: Maya met Ana about the garden plan {i}.", namespace="maya")
    records = vault.reembed(namespace="maya")
    total = sum(records.counts.values())
    first = _Dies(HashingEmbedder(), calls=2)
    with pytest.raises(KeyboardInterrupt):
        reembed(vault.store, first, "maya", apply=True, batch=10)
    assert first.texts > 0
    waiting = vault.reembed(namespace="maya")  # the dry run says what is left
    assert 0 < waiting.resumed == total - 20
    second = _Dies(HashingEmbedder(), calls=None)
    done = reembed(vault.store, second, "maya", apply=True, batch=10)
    assert done.resumed == total - 20 and second.texts == sum(done.counts.values())
    assert first.texts + second.texts == total  # every vector computed exactly once
    assert vault.store.count_docs("maya", PENDING) == 0
    again = _Dies(HashingEmbedder(), calls=None)  # a finished run: a new one starts over
    assert reembed(vault.store, again, "maya", apply=True).resumed == 0
    assert again.texts == total


class _Reading(HashingEmbedder):
    """Another model of the same dimension that says how much of a text it reads."""

    def __init__(self, reads: int):
        super().__init__()
        self.name, self.reads = f"reading-{reads}", reads

    def embed(self, texts):  # type: ignore[no-untyped-def]
        return super().embed([f"{t} reading" for t in texts])

    def reach(self, texts):  # type: ignore[no-untyped-def]
        return [min(len(t), self.reads) for t in texts]


def test_chunks_past_the_new_windows_keep_no_vector_of_the_old_model(tmp_path: Path) -> None:
    """A model that reads more cuts fewer windows: the chunk vectors the old cut had past the
    new ones take a copy of the episode's last new vector, so none of the old model's stays
    (the store deletes vectors only with their record) and the chunks found are the new."""
    text = " ".join(f"note{n} about the quarterly budget review" for n in range(120))
    from memvault.kg.model import chunk_id

    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder()) as vault:
        rid = vault.write(text, speaker="Ana", namespace="maya").id
        old = vault.store.get_vectors("maya", "chunk", [chunk_id(rid, n) for n in range(1, 33)])
    assert len(old) >= 8
    wider = _Reading(3000)
    with MemVault.open(tmp_path / "v.db", embedder=wider) as vault:
        report = vault.reembed(namespace="maya", apply=True)
        episode = vault.get_episode(rid, namespace="maya")
        windows = episode.chunk_texts(read=3000)
        assert 0 < len(windows) < len(old) and report.counts["chunk"] == len(windows)
        now = vault.store.get_vectors("maya", "chunk", list(old))
        assert set(now) == set(old)  # none deleted, none new past the old ones
        new = wider.embed(windows)
        for n, i in enumerate(sorted(old, key=lambda x: int(x.rsplit(":", 1)[1])), 1):
            expected = new[min(n, len(windows)) - 1]
            assert np.allclose(now[i], expected)
            assert not np.allclose(now[i], old[i])
