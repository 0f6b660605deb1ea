"""Maintenance ops, the janitor, conflict rules and routing, over an in-memory workspace."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memvault.bootstrap import load_settings
from memvault.changes.routing import route
from memvault.changes.workspace import Workspace
from memvault.config import (
    ConsolidateSettings,
    GateSettings,
    HygieneSettings,
    MaintenanceSettings,
    RecallSettings,
    Settings,
)
from memvault.dream.gate import decide
from memvault.dream.prune import prune
from memvault.errors import ConfigError
from memvault.kg.model import Entity, Episode, Fact, MemoryType, Mention, Tier
from memvault.kg.temporal_conflict import duplicate_groups, find_conflicts, rule_verdict
from memvault.lifecycle import hygiene, stickiness

NOW = datetime(2025, 6, 1, tzinfo=UTC)
NS = "n"


def ep(text: str, *, days_old: float = 0, **kw: object) -> Episode:
    at = NOW - timedelta(days=days_old)
    return Episode(namespace=NS, content=text, occurred_at=at, created_at=at, **kw)


def fact(obj: str, *, pred: str = "lives_in", days_old: float = 0, **kw: object) -> Fact:
    at = NOW - timedelta(days=days_old)
    return Fact(
        namespace=NS,
        subject_id="maya",
        subject="Maya",
        predicate=pred,
        object=obj,
        statement=f"Maya {pred} {obj}",
        valid_at=at,
        created_at=at,
        **kw,
    )


def workspace(*records: object) -> Workspace:
    ws = Workspace(NS, NOW)
    ws.add_records(records)  # type: ignore[arg-type]
    return ws


def ops(ws: Workspace) -> dict[str, list[str]]:
    return {c.target_id: [r.op for r in c.reasons] for c in ws.changes()}


def test_decay_stale_by_type_with_floors() -> None:
    s = MaintenanceSettings()
    old = ep("old note", days_old=100, type=MemoryType.PROJECT)
    fresh = ep("fresh", days_old=10, type=MemoryType.PROJECT)
    turn = ep("an old chat turn", days_old=100)  # episodic: ages through TTL, not here
    user_old = ep("user pref", days_old=100, type=MemoryType.USER)
    user_older = ep("user pref 2", days_old=200, type=MemoryType.USER, importance=0.15)
    floor = ep("at floor", days_old=100, importance=0.01, type=MemoryType.REFERENCE)
    ws = workspace(old, fresh, user_old, user_older, floor, turn)
    assert stickiness.decay_stale(ws, s) == 1
    assert ws.episodes[old.id].importance == pytest.approx(0.4)
    assert set(ops(ws)) == {old.id}  # user 100 d < 180 d; user at floor 0.15; already at 0.01


def test_boost_active_skips_sticky_and_caps_at_one() -> None:
    s = MaintenanceSettings()
    used = ep("used", access_count=6, reinforced_count=2, importance=0.95)
    sticky = ep("sticky", access_count=12, reinforced_count=1)
    ws = workspace(used, sticky)
    stickiness.boost_active(ws, s)
    assert ws.episodes[used.id].importance == 1.0
    assert ws.episodes[sticky.id].importance == 0.5


def test_unreinforced_decay_and_auto_snooze() -> None:
    s = MaintenanceSettings()
    sticky = ep("sticky", access_count=12, reinforced_count=1)
    mild = ep("mild", access_count=6, reinforced_count=1)
    ws = workspace(sticky, mild)
    assert stickiness.decay_unreinforced(ws, s) == 2
    assert ws.episodes[sticky.id].importance == pytest.approx(0.45)
    assert stickiness.auto_snooze(ws, s) == 1
    assert ws.episodes[sticky.id].cooldown_until == NOW + timedelta(days=30)
    assert ws.episodes[mild.id].cooldown_until is None


def test_fetch_counts_alone_are_no_evidence_where_nothing_is_ever_confirmed() -> None:
    """An agent that records every hit it was shown and never confirms: the ops that read
    stickiness leave its memories alone (they hid every much-asked note before)."""
    s = MaintenanceSettings()
    asked = ep("asked for daily", access_count=40)
    shown = ep("shown often", access_count=12)
    ws = workspace(asked, shown)
    assert not stickiness.confirms(ws)
    assert stickiness.boost_active(ws, s) == 0  # not confirmed: no boost either
    assert stickiness.decay_unreinforced(ws, s) == 0
    assert stickiness.auto_snooze(ws, s) == 0
    assert ops(ws) == {}
    confirmed = ep("confirmed once", access_count=6, reinforced_count=1)
    ws = workspace(asked, shown, confirmed)  # confirming happens here: the ratio is evidence
    assert stickiness.auto_snooze(ws, s) == 2
    assert set(ops(ws)) == {asked.id, shown.id}


def test_prune_irrelevant_deletes_and_lowers_entity_mentions_but_keeps_permanent() -> None:
    s = MaintenanceSettings()
    faded = ep("faded", days_old=40, importance=0.01)
    young = ep("young but faint", days_old=5, importance=0.01)
    kept = ep("permanent", days_old=400, importance=0.0, permanent=True)
    user = ep("user faint", days_old=100, importance=0.01, type=MemoryType.USER)
    ana = Entity(namespace=NS, name="Ana", mention_count=2, created_at=NOW, last_seen_at=NOW)
    ws = workspace(
        faded, young, kept, user, ana, Mention(namespace=NS, episode_id=faded.id, entity_id=ana.id)
    )
    assert stickiness.prune_irrelevant(ws, s) == 1
    changes = {c.target_id: c for c in ws.changes()}
    assert changes[faded.id].action == "delete"
    assert changes[ana.id].after["mention_count"] == 1  # type: ignore[index]
    assert changes[faded.id].group == changes[ana.id].group


def test_janitor_culls_decayed_facts_ttl_and_marks_permanent_stale() -> None:
    s = HygieneSettings(ttl_turns=2, ttl_days=90)
    weak = fact("Oslo", days_old=600, confidence=0.8)  # 0.8 × 0.5^(600/180) ≈ 0.08
    strong = fact("Rome", pred="likes", days_old=100)
    turns = [ep(f"turn {i}", days_old=i) for i in range(4)]
    permanent = ep("the wifi password", days_old=200, permanent=True)
    ws = workspace(weak, strong, permanent, *turns)
    recall = RecallSettings()  # fact_half_life_days 180
    snap = hygiene.run_janitor(ws, s, recall)
    assert snap["culled"] == [weak.id]
    assert ws.facts[weak.id].expired_at == NOW
    # beyond the newest 2: handed to the tiers (which digest them), not changed here
    assert sorted(snap["cold"]) == sorted(t.id for t in turns[2:])
    assert all(ws.episodes[i].tier == Tier.HOT for i in snap["cold"])
    assert snap["marked_stale"] == [permanent.id]
    assert hygiene.run_janitor(workspace(weak), HygieneSettings(enabled=False), recall) == {
        "enabled": False
    }
    assert hygiene.cull_facts(workspace(weak), HygieneSettings(cull_floor=0), recall) == []


def test_a_fact_in_use_is_not_culled_its_half_life_stretched_by_use() -> None:
    used = fact("Oslo", days_old=600, confidence=0.8)
    used.access_count, used.last_accessed = 4, NOW - timedelta(days=3)  # stretch ≈ 4.6×
    ws = workspace(used)
    assert hygiene.cull_facts(ws, HygieneSettings(), RecallSettings()) == []
    used.last_accessed = NOW - timedelta(days=40)  # the stretch has faded back to 1
    assert hygiene.cull_facts(workspace(used), HygieneSettings(), RecallSettings()) == [used.id]


def test_the_prune_never_takes_what_is_kept_in_use() -> None:
    s = MaintenanceSettings(prune_importance=0.05, prune_days=30)
    faded = ep("faded and unused", days_old=90, importance=0.01)
    ws = workspace(faded)
    assert stickiness.prune_irrelevant(ws, s, kept=lambda e: e.id == faded.id) == 0
    assert stickiness.prune_irrelevant(ws, s) == 1


def test_ttl_and_operator_needs_both_conditions() -> None:
    turns = [ep(f"turn {i}", days_old=i * 50) for i in range(4)]  # 0, 50, 100, 150 days
    ws = workspace(*turns)
    cold = hygiene.episodic_ttl(ws, HygieneSettings(ttl_turns=3, ttl_days=90, ttl_operator="and"))
    assert cold == [turns[3].id]


def test_conflicts_supersede_by_valid_time_and_duplicates_group() -> None:
    berlin, lisbon = fact("Berlin", days_old=200), fact("Lisbon", days_old=10)
    again = fact("lisbon", days_old=5)
    likes = [fact("tea", pred="likes"), fact("coffee", pred="likes")]
    conflicts = find_conflicts([berlin, lisbon, again, *likes], ["lives_in"])
    assert [(c.old.object, c.new.object) for c in conflicts] == [("Berlin", "Lisbon")]
    verdict = rule_verdict(conflicts[0])
    assert verdict.decision == "SUPERSEDE" and verdict.confidence > 0.8
    assert [[f.id for f in g] for g in duplicate_groups([berlin, lisbon, again])] == [
        [lisbon.id, again.id]
    ]
    same_time = find_conflicts([fact("A"), fact("B")], ["lives_in"])
    assert rule_verdict(same_time[0]).confidence < 0.8  # the timeline cannot settle it


def test_prune_removes_orphans_and_never_a_retired_record() -> None:
    """Retired records are history (as-of reads, facts --history): however long ago they
    were retired, the prune leaves them; it takes only entities nothing refers to."""
    retired = fact("Paris", expired_at=NOW - timedelta(days=4000))
    recent = fact("Rome", expired_at=NOW - timedelta(days=3))
    lonely = Entity(namespace=NS, name="Nobody", created_at=NOW, last_seen_at=NOW)
    maya = Entity(id="maya", namespace=NS, name="Maya", created_at=NOW, last_seen_at=NOW)
    ws = workspace(retired, recent, lonely, maya)
    assert prune(ws) == {"orphan_entities": 1}
    assert {c.target_id for c in ws.changes()} == {lonely.id}


def test_routing_sends_unsure_high_impact_and_crowded_ops_to_review() -> None:
    a, b, c = ep("a", access_count=6, reinforced_count=1), ep("b"), ep("c")
    ws = workspace(a, b, c)
    ws.update(a, "op.sure", "x", certainty=0.95, impact="medium", importance=0.6)
    ws.update(b, "op.unsure", "y", certainty=0.6, group="g", importance=0.6)
    ws.update(c, "op.sure2", "z", certainty=0.95, group="g", importance=0.6)
    auto, review = route(ws.changes(), ConsolidateSettings())
    assert [x.target_id for x in auto] == [a.id]
    assert [[x.target_id for x in g] for g in review] == [[b.id, c.id]]  # a group goes together
    d = ep("d")
    ws.add_records([d])
    ws.update(d, "op.sure", "w", certainty=0.95, impact="medium", importance=0.6)
    e = ep("e")
    ws.add_records([e])
    for rec in (e, ws.episodes[e.id]):
        ws.update(rec, "op.low", "v", certainty=0.95, tier=Tier.WARM)
    auto, review = route(ws.changes(), ConsolidateSettings(max_auto_per_op=1))
    assert [x.target_id for x in auto] == [e.id]  # low impact never crowds
    assert len(review) == 3  # op.sure proposed 2 > 1 medium-impact changes: crowded


def test_a_record_changed_twice_is_one_change_with_both_reasons() -> None:
    e = ep("x", days_old=100)
    ws = workspace(e)
    ws.update(e, "first", "one", certainty=0.9, importance=0.4)
    ws.update(ws.episodes[e.id], "second", "two", certainty=0.85, impact="medium", tier=Tier.COLD)
    (change,) = ws.changes()
    assert [r.op for r in change.reasons] == ["first", "second"]
    assert change.confidence == 0.85 and change.impact == "medium"
    assert change.before["importance"] == 0.5 and change.after["tier"] == "cold"  # type: ignore[index]
    with pytest.raises(ValueError):
        ws.update(e, "bad", "out of range", importance=1.5)


def test_gate_needs_time_and_sessions_and_force_bypasses() -> None:
    g = GateSettings()
    first = decide(last_dream_at=None, sessions_since=5, now=NOW, settings=g)
    assert first.open
    closed = decide(last_dream_at=NOW - timedelta(hours=3), sessions_since=2, now=NOW, settings=g)
    assert not closed.open and len(closed.reasons) == 2
    assert "3.0 h ago" in closed.reasons[0] and "2 session(s)" in closed.reasons[1]
    forced = decide(
        last_dream_at=NOW - timedelta(hours=3), sessions_since=2, now=NOW, settings=g, force=True
    )
    assert forced.open and forced.forced


def test_gate_counts_a_day_of_memories_without_a_session_as_one() -> None:
    g = GateSettings()
    closed = decide(
        last_dream_at=None, sessions_since=1, days_without_session=3, now=NOW, settings=g
    )
    assert not closed.open
    assert closed.reasons == [
        "1 session(s) and 3 day(s) of memories without a session since the last dream; "
        "the gate needs 5"
    ]
    assert decide(
        last_dream_at=None, sessions_since=2, days_without_session=3, now=NOW, settings=g
    ).open


@pytest.mark.parametrize(
    ("env", "setting"),
    [
        ({"MEMVAULT_RECALL__FACT_HALF_LIFE_DAYS": "-5"}, "recall.fact_half_life_days"),
        ({"MEMVAULT_DREAM__HYGIENE__TTL_OPERATOR": "xor"}, "dream.hygiene.ttl_operator"),
        ({"MEMVAULT_DREAM__GATE__MIN_SESSIONS": "many"}, "dream.gate.min_sessions"),
        (
            {"MEMVAULT_DREAM__TIERS__AFTER_DAYS": '{"episodic": [30, 10, 400]}'},
            "dream.tiers.after_days.episodic",
        ),
        ({"MEMVAULT_DREAM__TIERS__AFTER_DAYS": '{"user": [0, 10, null]}'}, "dream.tiers"),
        ({"MEMVAULT_DREAM__TIERS__DIGEST_CHARS": "0"}, "dream.tiers.digest_chars"),
        (
            {
                "MEMVAULT_DREAM__TIERS__HEADLINE_CHARS": "300",
                "MEMVAULT_DREAM__TIERS__DIGEST_CHARS": "200",
            },
            "dream.tiers.headline_chars",
        ),
    ],
)
def test_malformed_dream_config_is_refused_with_the_setting_named(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], setting: str
) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(ConfigError, match=setting.replace(".", r"\.")):
        load_settings()


def test_partial_overrides_merge_over_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMVAULT_DREAM__HYGIENE__CULL_FLOOR", "0")
    s = Settings()
    assert s.dream.hygiene.cull_floor == 0
    assert s.dream.hygiene.ttl_days == 90  # untouched default
    assert s.dream.gate.min_sessions == 5


def test_similar_entities_pairs_a_name_with_its_longer_forms_only() -> None:
    from memvault.dream.signal import similar_entities

    names = ["Ana", "Ana Duarte", "Anabel", "Anabel Ruiz", "Bo", "Bob", "Bo Li"]
    ws = workspace(*(Entity(namespace=NS, name=n, created_at=NOW, last_seen_at=NOW) for n in names))
    pairs = {(p["a"], p["b"]) for p in similar_entities(ws)}
    assert pairs == {("Ana", "Ana Duarte"), ("Anabel", "Anabel Ruiz"), ("Bo", "Bo Li")}


def test_similar_entities_leaves_out_a_place_and_two_kinds_and_names_the_pairs() -> None:
    """ "Leeds" and "Leeds General Infirmary" were reported as maybe one entity, and the
    dream's gap said only "1 pair(s)", naming neither."""
    from memvault.dream.reflect import derive_reflection, snapshot
    from memvault.dream.signal import similar_entities

    typed = [
        ("Leeds", "place"),
        ("Leeds General Infirmary", "unknown"),
        ("Jordan", "person"),
        ("Jordan Motors", "organization"),
        ("Ana", "person"),
        ("Ana Duarte", "unknown"),
    ]
    ws = workspace(
        *(Entity(namespace=NS, name=n, type=t, created_at=NOW, last_seen_at=NOW) for n, t in typed)
    )
    found = similar_entities(ws)
    assert [(p["a"], p["b"]) for p in found] == [("Ana", "Ana Duarte")]
    orient = {"new": {"episodes": 1, "sessions": 1}, "totals": {}, "sessions": []}
    signal = {
        "conflict_count": 0,
        "duplicate_fact_groups": 0,
        "similar_entities": found,
        "central_entities": [],
    }
    gaps = derive_reflection(snapshot(orient, signal, {})).gaps
    assert gaps == ["1 pair(s) of entities may be the same one: Ana / Ana Duarte"]
