from datetime import timedelta

import pytest
from pydantic import ValidationError

import memvault
from memvault.kg.model import Entity, Fact, normalize_name, normalize_predicate
from tests.conftest import T0


def fact(**kw: object) -> Fact:
    base: dict[str, object] = dict(
        namespace="n",
        subject_id="s",
        subject="Ana",
        predicate="lives_in",
        object="Lisbon",
        statement="Ana lives in Lisbon",
        valid_at=T0,
        created_at=T0,
    )
    return Fact(**{**base, **kw})


def test_fact_validity_is_half_open_and_respects_retirement() -> None:
    f = fact(invalid_at=T0 + timedelta(days=10))
    assert not f.is_valid_at(T0 - timedelta(seconds=1))
    assert f.is_valid_at(T0)
    assert f.is_valid_at(T0 + timedelta(days=9))
    assert not f.is_valid_at(T0 + timedelta(days=10))
    assert not fact(expired_at=T0).is_valid_at(T0 + timedelta(days=1))


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -0.1, 1.5])
def test_confidence_must_be_finite_and_in_range(bad: float) -> None:
    with pytest.raises(ValidationError, match="confidence"):
        fact(confidence=bad)


def test_names_and_predicates_normalise() -> None:
    assert normalize_name("  The  Big Apple! ") == "big apple"
    assert normalize_name("The") == "the"
    assert normalize_predicate(" Lives In ") == "lives_in"
    assert fact(predicate="Works-At").predicate == "works_at"


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValidationError, match="extra"):
        Entity(namespace="n", name="x", created_at=T0, last_seen_at=T0, colour="red")  # type: ignore[call-arg]


def test_namespace_pattern_is_enforced() -> None:
    with pytest.raises(ValidationError):
        Entity(namespace="bad name!", name="x", created_at=T0, last_seen_at=T0)


def test_public_api_all_is_exact() -> None:
    exported = {name for name in dir(memvault) if not name.startswith("_")}
    exported |= {"Client", "AsyncClient"}  # loaded on first use (memvault.__getattr__)
    assert memvault.Client.__name__ == "Client"
    assert memvault.AsyncClient.__name__ == "AsyncClient"
    modules = {
        "bootstrap",
        "clock",
        "config",
        "errors",
        "kg",
        "recall",
        "vault",
        "embed",
        "llm",
        "ingest",
        "interop",
        "cli",
        "eval",
        "demo",
        "lifecycle",
        "dream",
        "changes",
        "feedback",
        "background",
        "offline_rules",
        "lint",
        "profile",
        "coord",
        "graphs",
        "jobs",
        "devservers",
        "folds",
        "primer",
        "persona",
        "client",
        "client_ops",
        "capabilities",
        "container",
        "memories",
        "digests",
        "language",
        "logs",
    }
    assert set(memvault.__all__) - {"__version__"} == exported - modules
    for name in memvault.__all__:
        assert hasattr(memvault, name)


def test_chunk_windows_begin_where_the_embedder_stops_reading() -> None:
    """``read``: the characters the episode's own vector reads. The first window starts an
    overlap before that, the last one reaches the end, and a text the embedder reads whole
    has none; unknown (None), one window's worth (600 characters) is assumed read."""
    from memvault.language.text import CHUNK_OVERLAP, tail_chunks

    text = " ".join(f"w{n:04d}" for n in range(400))  # 2,399 characters, every word unique
    windows = tail_chunks(text, 600, CHUNK_OVERLAP, read=1200)
    first = text.index(windows[0])
    assert 1200 - CHUNK_OVERLAP <= first <= 1200
    assert windows[-1].endswith("w0399")
    assert len(windows) < len(tail_chunks(text, 600, CHUNK_OVERLAP))  # assumed: 600 read
    assert text.index(tail_chunks(text, 600, CHUNK_OVERLAP)[0]) < 600
    assert tail_chunks(text, 600, CHUNK_OVERLAP, read=len(text)) == []
    assert tail_chunks(text, 600, CHUNK_OVERLAP, read=None) == tail_chunks(text)
