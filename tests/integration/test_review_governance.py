"""The review queue governs itself: explicit reasons, due dates (overdue items re-queued,
never dropped or applied), and thresholds calibrated from decisions, journaled and
resettable; bad policy settings are refused naming the setting."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memvault import ConfigError, MemVault
from memvault.bootstrap import load_settings
from memvault.demo import demo_items
from memvault.embed import HashingEmbedder

AT = datetime(2026, 1, 1, tzinfo=UTC)


def _vault(path: Path, **review: object) -> MemVault:
    v = MemVault.open(path, embedder=HashingEmbedder(), dream={"review": review})
    for at, items in demo_items():
        v.write_many(items, namespace="maya", now=at)
    return v


def test_items_carry_reasons_and_a_due_date_and_overdue_ones_are_requeued(tmp_path: Path) -> None:
    with _vault(tmp_path / "g.db", due_days=3) as v:
        v.dream(namespace="maya", apply=True, force=True, now=AT)
        (item,) = v.review_items(namespace="maya")
        assert [r["code"] for r in item["reasons"]] == ["low_confidence"]
        assert item["due_at"].startswith("2026-01-04")
        assert v.review_items(namespace="maya", reason="sensitive") == []
        assert v.review_items(namespace="maya", reason="low_confidence")[0]["id"] == item["id"]
        before = v.facts(namespace="maya", predicate="manager", as_of=AT)

        assert v.requeue_overdue(namespace="maya", now=AT + timedelta(days=2)) == []
        later = AT + timedelta(days=5)
        assert v.requeue_overdue(namespace="maya", now=later) == [item["id"]]
        (again,) = v.review_items(namespace="maya")
        assert again["status"] == "pending" and again["due_at"].startswith("2026-01-09")
        assert [h["event"] for h in again["history"]] == ["queued", "overdue: re-queued"]
        # never applied on its own
        assert v.facts(namespace="maya", predicate="manager", as_of=AT) == before


def test_decisions_calibrate_thresholds_journaled_and_resettable(tmp_path: Path) -> None:
    with _vault(tmp_path / "c.db", loosen_after=1) as v:
        v.dream(namespace="maya", apply=True, force=True, now=AT)
        (item,) = v.review_items(namespace="maya")
        op = item["changes"][0]["reasons"][0]["op"]
        v.reject(item["id"], namespace="maya", note="two managers, two teams", now=AT)
        policy = v.review_policy(namespace="maya")
        assert policy["thresholds"][op] == pytest.approx(0.85)  # 0.8 + one step: stricter
        assert policy["decisions"][op]["low_confidence"] == {"approved": 0, "rejected": 1}
        (move,) = policy["changes"]
        assert (move["op"], move["from"], move["to"]) == (op, 0.8, 0.85)
        assert "rejection" in move["why"] and move["review_id"] == item["id"]

        assert v.reset_review_policy(namespace="maya") == 1
        policy = v.review_policy(namespace="maya")
        assert policy["thresholds"] == {}
        assert policy["changes"][0]["why"] == "reset by an operator"
        assert policy["decisions"][op]["low_confidence"]["rejected"] == 1  # counts are kept


def test_approvals_in_a_row_loosen_within_bounds(tmp_path: Path) -> None:
    from memvault.changes.policy import PolicyState, calibrate
    from memvault.config import ReviewSettings

    s = ReviewSettings(loosen_after=3, step=0.1, min_threshold=0.6)
    state = PolicyState()
    moves = [calibrate(state, ["x"], ["low_confidence"], "approved", s, 0.8) for _ in range(9)]
    assert [len(m) for m in moves] == [0, 0, 1, 0, 0, 1, 0, 0, 0]  # 0.7, then 0.6: the floor
    assert state.thresholds["x"] == pytest.approx(0.6)
    calibrate(state, ["x"], ["low_confidence"], "rejected", s, 0.8)
    assert state.thresholds["x"] == pytest.approx(0.7) and state.streaks["x"] == 0


def test_a_calibrated_threshold_routes_the_next_run(tmp_path: Path) -> None:
    from memvault.changes.plan import Change, Reason
    from memvault.changes.routing import route
    from memvault.config import ConsolidateSettings

    c = Change(kind="fact", target_id="f", before={}, after={},
               reasons=[Reason(op="consolidate.supersede", why="w", confidence=0.9)])  # fmt: skip
    s = ConsolidateSettings()
    assert route([c], s)[0] == [c]  # 0.9 > 0.8: auto-approved
    assert route([c], s, thresholds={"consolidate.supersede": 0.95})[1] == [[c]]


@pytest.mark.parametrize(
    ("env", "setting"),
    [
        ({"MEMVAULT_DREAM__REVIEW__DUE_DAYS": "-1"}, "dream.review.due_days"),
        ({"MEMVAULT_DREAM__REVIEW__MIN_THRESHOLD": "1.5"}, "dream.review.min_threshold"),
        ({"MEMVAULT_DREAM__REVIEW__MIN_THRESHOLD": "0.9",
          "MEMVAULT_DREAM__REVIEW__MAX_THRESHOLD": "0.7"}, "dream.review"),
    ],
)  # fmt: skip
def test_bad_policy_settings_are_refused_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], setting: str
) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(ConfigError, match=setting.replace(".", r"\.")):
        load_settings()


def test_deleting_a_user_type_memory_always_waits_for_a_human() -> None:
    from memvault.changes.plan import Change, Reason
    from memvault.changes.routing import reasons, route
    from memvault.config import ConsolidateSettings

    gone = Change(kind="episode", target_id="e", before={"type": "user"}, after=None,
                  reasons=[Reason(op="prune.orphan", why="w", confidence=0.99)])  # fmt: skip
    s = ConsolidateSettings()
    assert route([gone], s)[0] == []
    assert [r["code"] for r in reasons([gone], s)] == ["sensitive"]


def test_the_write_gate_holds_low_confidence_facts_until_approved(tmp_path: Path) -> None:
    with MemVault.open(tmp_path / "w.db", embedder=HashingEmbedder(), hold_facts_below=0.85) as v:
        result = v.write_many(
            [{"content": "I live in Porto.", "speaker": "Ana"}], namespace="ana", now=AT
        )
        assert result.facts_held == 1 and result.facts_created == 0
        assert v.facts(namespace="ana", as_of=AT) == []  # it does not count yet
        assert all(h.kind == "episode" for h in v.recall("where does Ana live", namespace="ana"))
        (item,) = v.review_items(namespace="ana")
        assert item["reasons"][0]["code"] == "low_confidence"
        assert "held at write" in item["reason"]
        assert v.approve(item["id"], namespace="ana", now=AT) == 1
        (fact,) = v.facts(namespace="ana", as_of=AT)
        assert fact.object == "Porto"
        hits = v.recall("where does Ana live", namespace="ana", now=AT)
        assert hits[0].kind == "fact" and hits[0].id == fact.id  # it counts now, with a vector
    with MemVault.open(tmp_path / "off.db", embedder=HashingEmbedder()) as v:  # off by default
        result = v.write_many([{"content": "I live in Porto.", "speaker": "Ana"}], namespace="ana")
        assert result.facts_held == 0 and result.facts_created == 1


def test_the_queue_holds_one_item_per_change_across_dreams(tmp_path: Path) -> None:
    """Issue 30.5: a change still waiting is not queued again by the next dream."""
    with _vault(tmp_path / "q.db") as v:
        v.dream(namespace="maya", apply=True, force=True, now=AT)
        (item,) = v.review_items(namespace="maya")
        for day in (1, 2, 3):
            run = v.dream(namespace="maya", apply=True, force=True, now=AT + timedelta(days=day))
            assert run.report["review_held"]["already_queued"] == 1
        assert [i["id"] for i in v.review_items(namespace="maya", status=None)] == [item["id"]]


def test_a_change_a_human_rejected_is_never_auto_applied_again(tmp_path: Path) -> None:
    from memvault.changes.plan import Change, Reason
    from memvault.changes.routing import reasons, route
    from memvault.config import ConsolidateSettings

    with _vault(tmp_path / "r.db") as v:
        v.dream(namespace="maya", apply=True, force=True, now=AT)
        (item,) = v.review_items(namespace="maya")
        v.reject(item["id"], namespace="maya", note="two managers, two teams", now=AT)
        later = v.dream(namespace="maya", apply=True, force=True, now=AT + timedelta(days=2))
        assert v.review_items(namespace="maya") == []  # the same change: the verdict stands
        assert later.report["review_held"] == {"already_queued": 0, "verdict_remembered": 1}
        managers = {f.object for f in v.facts(namespace="maya", predicate="manager")}
        assert len(managers) == 2  # and it was not applied either
    supersede = Reason(op="consolidate.supersede", why="w", confidence=0.99)
    sure = Change(kind="fact", target_id="f", before={}, after={}, reasons=[supersede])
    rejected = {("fact", "f", "consolidate.supersede"): "rev1"}
    assert route([sure], ConsolidateSettings(), rejected=rejected)[0] == []
    assert reasons([sure], ConsolidateSettings(), rejected=rejected)[0]["code"] == (
        "conflicting_verdicts"
    )
