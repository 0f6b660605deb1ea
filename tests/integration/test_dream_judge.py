"""The dream's judge: litellm through ``mock_response`` (batched, counted per stage), the
rules settling what the timeline can before anything reaches a model, a sure coexist
remembered until new evidence arrives; and the reflection, which leaves the people talking
out of its gaps."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder
from memvault.llm import LiteLLMProvider
from tests.dream_history import LATER, day, seed


@pytest.mark.parametrize(("batch", "calls"), [(20, 1), (1, 2)])
def test_litellm_judge_is_batched_and_counted_per_stage(
    tmp_path: Path, batch: int, calls: int
) -> None:
    path = tmp_path / "llm.db"
    with MemVault.open(path, embedder=HashingEmbedder(), clock=FixedClock(LATER)) as vault:
        seed(vault)  # extraction offline
        conflicts = vault.dream().report["stages"]["signal"]["conflicts"]
    ids = {c["predicate"]: c["conflict_id"] for c in conflicts}
    answer = {  # one mock answer that parses as both the verdicts and the reflection
        "verdicts": [
            {
                "conflict_id": ids["lives_in"],
                "decision": "SUPERSEDE",
                "confidence": 0.95,
                "reason": "moved",
            },
            {
                "conflict_id": ids["manager"],
                "decision": "COEXIST",
                "confidence": 0.9,
                "reason": "two teams",
            },
        ],
        "insights": ["Maya moved to Lisbon"],
        "gaps": [],
    }
    llm = LiteLLMProvider("gpt-4o-mini", mock_response=json.dumps(answer))
    with MemVault.open(
        path,
        embedder=HashingEmbedder(),
        clock=FixedClock(LATER),
        llm=llm,
        dream={"consolidate": {"judge_batch": batch}},
    ) as vault:
        result = vault.dream()
    usage = result.report["llm"]
    assert usage["dream.consolidate"]["calls"] == calls
    assert usage["dream.reflect"]["calls"] == 1
    assert usage["dream.consolidate"]["prompt_tokens"] > 0
    supersedes = [c for c in result.plan.changes if c.op == "consolidate.supersede"]
    assert [c.before["object"] for c in supersedes] == ["Berlin"]  # type: ignore[index]
    assert result.report["stages"]["reflect"]["insights"] == ["Maya moved to Lisbon"]
    assert result.report["to_review"] == 0  # COEXIST at 0.9 changes nothing


def test_rules_settle_what_the_timeline_can_and_only_the_rest_reach_the_model(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ladder.db"
    with MemVault.open(path, embedder=HashingEmbedder(), clock=FixedClock(LATER)) as vault:
        seed(vault)
        conflicts = vault.dream().report["stages"]["signal"]["conflicts"]
    ids = {c["predicate"]: c["conflict_id"] for c in conflicts}
    # the model would keep both cities; it must not be asked about them
    verdicts = [
        {"conflict_id": i, "decision": "COEXIST", "confidence": 0.9, "reason": "model"}
        for i in ids.values()
    ]
    answer = json.dumps({"verdicts": verdicts, "insights": [], "gaps": []})
    llm = LiteLLMProvider("gpt-4o-mini", mock_response=answer)
    with MemVault.open(
        path,
        embedder=HashingEmbedder(),
        clock=FixedClock(LATER),
        llm=llm,
        dream={"consolidate": {"rules_settle_at": 0.9, "judge_batch": 1}},
    ) as vault:
        result = vault.dream()
    stage = result.report["stages"]["consolidate"]
    # Berlin -> Lisbon is a later value of a one-value predicate (rule confidence 0.9): final;
    # two managers stated at once cannot be settled by the timeline, so the model is asked
    assert stage["settled_by"] == {"rules": 1, "model": 1, "escalated": 0}
    assert result.report["llm"]["dream.consolidate"]["calls"] == 1
    assert stage["verdicts"] == {"MERGE": 0, "SUPERSEDE": 1, "COEXIST": 1}
    supersedes = [c for c in result.plan.changes if c.op == "consolidate.supersede"]
    assert [c.before["object"] for c in supersedes] == ["Berlin"]  # type: ignore[index]


def test_a_sure_coexist_is_remembered_until_new_evidence_arrives(tmp_path: Path) -> None:
    path = tmp_path / "coexist.db"
    with MemVault.open(path, embedder=HashingEmbedder(), clock=FixedClock(LATER)) as vault:
        seed(vault)
        conflicts = vault.dream().report["stages"]["signal"]["conflicts"]
    ids = {c["predicate"]: c["conflict_id"] for c in conflicts}
    verdicts = [{"conflict_id": ids["manager"], "decision": "COEXIST", "confidence": 0.9}]
    answer = json.dumps(
        {"verdicts": [v | {"reason": "two teams"} for v in verdicts], "insights": [], "gaps": []}
    )

    def dream(now: datetime, *, apply: bool = True) -> dict[str, object]:
        llm = LiteLLMProvider("gpt-4o-mini", mock_response=answer)
        settle = {"consolidate": {"rules_settle_at": 0.9}}  # Berlin -> Lisbon: by the timeline
        clock = FixedClock(now)
        with MemVault.open(
            path, embedder=HashingEmbedder(), clock=clock, llm=llm, dream=settle
        ) as v:
            report = v.dream(apply=apply, force=True).report
        return report

    planned = dream(LATER, apply=False)  # a dry run remembers nothing
    assert planned["llm"]["dream.consolidate"]["calls"] == 1
    first = dream(LATER)
    assert first["llm"]["dream.consolidate"]["calls"] == 1
    assert first["stages"]["consolidate"]["verdicts"]["COEXIST"] == 1
    assert [r["id"] for r in first["stages"]["consolidate"]["remember"]] == [ids["manager"]]
    again = dream(LATER + timedelta(days=1))
    assert "dream.consolidate" not in again["llm"]  # nothing new: the model is not asked
    stage = again["stages"]["consolidate"]
    assert stage["remembered"] == 1
    assert stage["verdicts"] == {"MERGE": 0, "SUPERSEDE": 0, "COEXIST": 0}
    assert again["to_review"] == 0
    # Maya names Priya again: new evidence about the pair, so it is judged again
    with MemVault.open(path, embedder=HashingEmbedder(), clock=FixedClock(LATER)) as vault:
        vault.write("My manager is Priya.", speaker="Maya", session_id="s7", now=day(195))
    judged = dream(LATER + timedelta(days=2))
    assert judged["llm"]["dream.consolidate"]["calls"] == 1
    assert judged["stages"]["consolidate"]["remembered"] == 0


def reflection(tmp_path: Path, lines: list[tuple[str, str]]) -> dict:
    """What one forced dream's reflect stage says of a chat, a line a day, one session each."""
    with MemVault.open(tmp_path / "c.db", embedder=HashingEmbedder(), clock=FixedClock(LATER)) as v:
        for i, (who, text) in enumerate(lines):
            v.write(text, speaker=who, session_id=f"s{i}", now=day(i))
        return dict(v.dream(force=True).report["stages"]["reflect"])


def test_the_people_talking_are_no_gap_and_not_the_news(tmp_path: Path) -> None:
    """Two speakers who name each other all the time are the most central entities of
    their chat and no fact names them: the reflection neither lists them as gaps nor as
    what is central now (on LoCoMo both speakers led both lists)."""
    lines = [
        ("Caroline", "Melanie, I went to the LGBTQ support group yesterday."),
        ("Melanie", "Caroline, that's great! The Pottery class was fun too."),
        ("Caroline", "Thanks Melanie. The Pottery pieces look great."),
        ("Melanie", "Caroline, the support group sounds powerful."),
        ("Caroline", "Melanie, my Pottery mug cracked in the kiln, sadly."),
        ("Melanie", "Oh no Caroline! The Pottery teacher can help."),
    ]
    found = reflection(tmp_path, lines)
    said = " ".join(found["insights"] + found["gaps"])
    assert "Caroline" not in said and "Melanie" not in said, said
    assert "Pottery" in said  # what they talk about still is


def test_a_name_said_once_beside_the_speakers_does_not_come_up_often(tmp_path: Path) -> None:
    """The speakers are hubs of their chat's graph: a name said once beside them ("Bach" in
    one line of a LoCoMo chat) ranked as central as what the chat keeps coming back to, and
    was called a gap that "comes up often". Without the speakers in the graph, and with
    each new memory's names weighing as often as they are said, what recurs leads; a gap
    is only claimed for a name said in at least three memories."""
    lines = [
        ("Caroline", "Melanie, I love classical music like Bach."),
        ("Melanie", "Caroline, the LGBTQ center needs volunteers."),
        ("Caroline", "Melanie, I went to the LGBTQ support group again."),
        ("Melanie", "Caroline, the LGBTQ parade is next week!"),
        ("Caroline", "Melanie, my LGBTQ art show opens Friday."),
    ]
    found = reflection(tmp_path, lines)
    central = next(i for i in found["insights"] if i.startswith("most central now"))
    assert central.startswith("most central now: LGBTQ"), central
    assert "LGBTQ comes up often, but no fact names it" in found["gaps"]
    assert not any(g.startswith("Bach") for g in found["gaps"]), found["gaps"]
