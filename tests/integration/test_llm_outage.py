"""A model outage is not a lost night (issue 30.6): with the configured model failing on every
call (litellm's own mock outage), writes derive and a dream completes, judged by the offline
rules and labelled so in its report, and the vault ends where the offline vault ends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder
from tests import maya

T = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)


def _vault(path: Path, **settings: object) -> MemVault:
    return MemVault.open(
        path, embedder=HashingEmbedder(), clock=FixedClock(T + timedelta(days=200)), **settings
    )


def test_a_dream_in_an_outage_completes_on_the_rules_and_says_so(tmp_path: Path) -> None:
    down = _vault(
        tmp_path / "down.db",
        llm_model="gpt-4o-mini",
        llm_mock_response="litellm.InternalServerError",
        llm_backoff_s=0.0,
    )
    offline = _vault(tmp_path / "offline.db")
    outcomes = []
    for vault in (down, offline):
        maya.write(vault, T)
        run = vault.dream(apply=True, force=True)
        assert run.status == "applied" and run.run_id
        report = vault.dream_report(run.run_id)
        facts = sorted((f.predicate, f.object) for f in vault.facts())
        outcomes.append((facts, report))
        vault.close()
    (down_facts, down_report), (offline_facts, _) = outcomes
    assert down_facts == offline_facts  # the rules judged what the model could not
    fallback = {site for site in down_report["llm"] if site.endswith(":offline-fallback")}
    assert fallback, down_report["llm"]  # and the report says which calls they answered


def test_rules_only_writes_never_call_the_configured_model(tmp_path: Path) -> None:
    """31.8: with a model configured, a write can still extract with the offline rules alone
    (per write, and by setting); without it the model's extraction is used."""
    import json

    answer = {
        "entities": [{"name": "Zed", "type": "person"}],
        "facts": [
            {
                "subject": "Zed",
                "predicate": "owns",
                "object": "a spaceship",
                "statement": "Zed owns a spaceship",
            }
        ],
    }
    settings = {"llm_model": "gpt-4o-mini", "llm_mock_response": json.dumps(answer)}
    vault = _vault(tmp_path / "m.db", **settings)
    vault.write("I live in Lisbon now.", speaker="Ana", rules_only=True)
    assert [(f.predicate, f.object) for f in vault.facts()] == [("lives_in", "Lisbon")]
    assert "ingest.extract" not in vault.c.llm.usage.snapshot()
    vault.write("Anything at all.", speaker="Ana")  # the model extracts
    assert ("owns", "a spaceship") in [(f.predicate, f.object) for f in vault.facts()]
    assert "ingest.extract" in vault.c.llm.usage.snapshot()
    vault.close()

    by_setting = _vault(tmp_path / "s.db", extract_with_rules=True, **settings)
    by_setting.write_many([{"content": "I live in Oslo now.", "speaker": "Bo"}])
    assert [(f.predicate, f.object) for f in by_setting.facts()] == [("lives_in", "Oslo")]
    assert "ingest.extract" not in by_setting.c.llm.usage.snapshot()
    by_setting.close()
