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
