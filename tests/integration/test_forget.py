"""Forget, erase a data subject, correct (issue 30.8), on the SDK over a real SQLite file:
the text leaves recall, keyword search, exports, documents and the file's bytes; what other
memories support stays; undo of an earlier dream run does not bring it back."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memvault import FixedClock, MemVault
from memvault.capabilities.forget import AUDIT, Scrubber
from memvault.changes.docs import JOURNAL, RUN
from memvault.embed import HashingEmbedder
from memvault.errors import NotFoundError
from memvault.kg.store import Batch
from tests import maya

T = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
SECRET = "the alarm code for the boathouse is 4417 and the spare key hangs behind the kayak rack"


def _bytes(path: Path) -> bytes:
    """Everything memvault keeps on disk for this vault: the file, its log, its indexes."""
    out = b""
    for p in sorted(path.parent.rglob("*")):
        if p.is_file():
            out += p.read_bytes()
    return out


@pytest.fixture
def vpath(tmp_path: Path) -> Path:
    return tmp_path / "vault.db"


@pytest.fixture
def mv(vpath: Path) -> MemVault:
    v = MemVault.open(vpath, embedder=HashingEmbedder(), clock=FixedClock(T + timedelta(days=200)))
    yield v
    v.close()


def test_forget_erases_the_text_everywhere_and_keeps_the_neighbour(mv: MemVault, vpath: Path):
    maya.write(mv, T)
    secret = mv.write(SECRET, speaker="Maya", session_id="s7", now=T + timedelta(days=180))
    neighbour = mv.write(
        "The boathouse opens at seven on Saturdays.", speaker="Maya", session_id="s7",
        now=T + timedelta(days=180),
    )  # fmt: skip
    assert mv.recall("boathouse alarm code kayak")[0].id == secret.id
    assert b"spare key hangs" in _bytes(vpath)

    preview = mv.forget(secret.id, dry_run=True)
    assert not preview.applied and preview.preview[0]["id"] == secret.id
    assert mv.get_episode(secret.id).content == SECRET  # a dry run changes nothing

    done = mv.forget(secret.id, by="tester")
    assert done.applied and done.audit_id
    with pytest.raises(NotFoundError):
        mv.get_episode(secret.id)
    hits = mv.recall("boathouse alarm code kayak")
    assert secret.id not in {h.id for h in hits}
    assert hits[0].id == neighbour.id  # the neighbour stays, found by its own words
    terms = ["alarm", "kayak", "spare"]
    assert not mv.store.keyword_topk("default", "episode", terms, 10)
    dump = io.StringIO()
    mv.export(dump)
    assert "spare key" not in dump.getvalue() and "Saturdays" in dump.getvalue()
    mv.export_memory_dir(vpath.parent / "exported")
    assert all("spare key" not in p.read_text() for p in (vpath.parent / "exported").rglob("*.md"))
    # the number in its words: a bare "4417" also turns up by chance inside random hex ids
    assert b"spare key hangs" not in _bytes(vpath) and b"boathouse is 4417" not in _bytes(vpath)

    (audit,) = mv.store.list_docs("default", AUDIT)
    assert audit.body["by"] == "tester" and audit.body["episode_ids"] == [secret.id]
    assert "boathouse" not in str(audit.body)  # who, when, which id: never the text


def test_a_fact_derived_only_from_a_forgotten_memory_goes_one_supported_elsewhere_stays(
    mv: MemVault,
):
    a = mv.write("I live in Porto.", speaker="Rui", now=T)
    b = mv.write("I live in Porto, by the river.", speaker="Rui", now=T + timedelta(days=1))
    lives = [f for f in mv.facts(include_history=True) if f.predicate == "lives_in"]
    assert lives and {a.id, b.id} <= {s for f in lives for s in f.source_episode_ids}

    mv.forget(a.id)
    kept = [f for f in mv.facts(include_history=True) if f.predicate == "lives_in"]
    assert kept and all(a.id not in f.source_episode_ids for f in kept)  # kept, without it

    plan = mv.forget(b.id)
    assert plan.fact_ids  # now nothing else supports it
    assert not [f for f in mv.facts(include_history=True) if f.predicate == "lives_in"]


def test_undo_of_an_earlier_dream_does_not_bring_a_forgotten_memory_back(mv: MemVault, vpath: Path):
    maya.write(mv, T)
    run = mv.dream(apply=True, force=True)
    assert run.status == "applied" and run.run_id
    (doc,) = mv.store.get_docs("default", RUN, [run.run_id])
    journal = mv.store.get_docs("default", JOURNAL, doc.body["journal"])
    touched = [e["id"] for j in journal for e in j.body["entries"] if e["kind"] == "episode"]
    assert touched, "the dream changed no episode: the test needs one in a journal"
    others = {e.id: e.content for e in mv.episodes(limit=100)}
    victim = next(
        mv.get_episode(i)
        for i in touched
        if not any(others[i][:24] in t for j, t in others.items() if j != i)
    )  # its words are its own: the bytes say whether they are gone
    phrase = victim.content[:24].encode()
    mv.forget(victim.id)
    assert phrase not in _bytes(vpath)

    mv.undo_dream(run.run_id, force=True)
    with pytest.raises(NotFoundError):
        mv.get_episode(victim.id)
    assert victim.id not in {e.id for e in mv.episodes(limit=100)}
    assert phrase not in _bytes(vpath)


def test_forget_a_subject_previews_then_erases_everything_about_them(mv: MemVault, vpath: Path):
    mv.write("My dentist is Dr. Okafor in Alfama.", speaker="Ines", now=T)
    mv.write("Okafor said the filling can wait until June.", speaker="Ines", now=T)
    mv.write("I bought a new bicycle.", speaker="Ines", now=T)
    plan = mv.forget_subject("Okafor")
    assert not plan.applied and len(plan.episode_ids) == 2
    assert all("Okafor" in p["text"] for p in plan.preview if p["kind"] == "episode")
    assert b"filling can wait" in _bytes(vpath)  # the default is a dry run

    mv.forget_subject("Okafor", dry_run=False)
    assert [e.content for e in mv.episodes()] == ["I bought a new bicycle."]
    assert not [f for f in mv.facts(include_history=True) if "Okafor" in f.statement]
    assert b"Okafor" not in _bytes(vpath)
    with pytest.raises(NotFoundError):
        mv.forget_subject("Okafor")


def test_correct_supersedes_and_keeps_the_history(mv: MemVault):
    old = mv.write("I live in Braga.", speaker="Ana", now=T)
    braga = [f for f in mv.facts() if f.object == "Braga"]
    assert braga
    fixed = mv.correct(old.id, "I live in Guimarães.", now=T + timedelta(days=2))
    assert fixed.facts_retired == [f.id for f in braga]
    assert mv.get_episode(old.id).expired_at is not None  # retired, not erased
    assert mv.get_episode(old.id).replaced_by[-1].by == "user"
    assert mv.get_episode(fixed.new_id).metadata["corrects"] == old.id
    hits = mv.recall("where does Ana live?")
    assert hits[0].id != old.id and old.id not in {h.id for h in hits}
    assert [f.object for f in mv.facts() if f.predicate == "lives_in"] == ["Guimarães"]
    then = mv.facts(as_of=T + timedelta(days=1))  # as believed before the correction
    assert "Braga" in {f.object for f in then}


def test_the_scrubber_takes_ids_and_quoted_text_out_of_any_document():
    s = Scrubber(["e1"], [SECRET, "Hi!"])
    body = {
        "ids": ["e1", "e2"],
        "entries": [{"kind": "episode", "id": "e1", "before": {"content": SECRET}}],
        "evidence": [{"episode_id": "e1"}, {"episode_id": "e2"}],
        "digest": f"- 2025-01-01 Maya: {SECRET[:70]}…\n- 2025-01-02 Maya: went surfing",
        "note": "Hi!",
        "other": "the boathouse is lovely",
    }
    assert s.value(body) == {
        "ids": ["e2"],
        "entries": [{"kind": "episode", "id": "e1", "forgotten": True}],
        "evidence": [{"episode_id": "e2"}],
        "digest": "- 2025-01-02 Maya: went surfing",
        "note": "[forgotten]",
        "other": "the boathouse is lovely",
    }


def test_a_fact_derived_after_the_preview_is_erased_with_the_memory(mv: MemVault) -> None:
    secret = mv.write(SECRET, speaker="Maya", now=T)
    preview = mv.forget(secret.id, dry_run=True)
    late = mv.add_fact("boathouse", "alarm_code", "4417", now=T)  # a dream's, say
    mv.store.apply(
        Batch("default", facts=[late.model_copy(update={"source_episode_ids": [secret.id]})])
    )
    done = mv.forgetting.service.apply(preview, by="tester", now=T)
    assert late.id in done.fact_ids  # planned again under the lock
    assert not [f for f in mv.facts(include_history=True) if f.object == "4417"]
