"""Tiers and one-way digests: what goes cold loses its text for good (after the journal's
retention), a memory used again warms up but keeps its digest, the limits hold whatever the
model answers, and what is permanent, confirmed or in use is never compressed."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from typer.testing import CliRunner

from memvault import FixedClock, MemVault
from memvault.changes.docs import JOURNAL, PENDING, REVIEW, RUN
from memvault.cli.main import app
from memvault.embed import HashingEmbedder
from memvault.kg.model import Tier
from memvault.lifecycle.tiers import clip_chars, extractive_digest, headline, rarity
from memvault.llm import LiteLLMProvider
from memvault.recall.scoring import half_life_stretch

T0 = datetime(2025, 1, 1, tzinfo=UTC)
LATER = T0 + timedelta(days=100)  # past episodic cold (60 idle days), before frozen (365)
SECRET = "The spare key is under the blue flowerpot"  # a sentence only the full text holds
LONG = (
    "Maya moved the billing service to Postgres 16 on March 3. "
    "The migration took four hours and nobody noticed. "
    "We chatted about lunch, the weather and a long story about a neighbour's cat. "
    f"{SECRET}, she added, laughing about the last time. "
    "The rollback plan lives in runbook RB-12, owned by Tomas. "
    "Then more small talk with Dana about football, holidays and the coffee machine on floor two."
)


def open_vault(path: Path, now: datetime, **kw: object) -> MemVault:
    return MemVault.open(path, embedder=HashingEmbedder(), clock=FixedClock(now), **kw)


def write_history(path: Path) -> dict[str, str]:
    with open_vault(path, T0) as vault:
        long_id = vault.write(LONG, speaker="Maya", session_id="s1").id
        short_id = vault.write("Tomas likes oat milk", speaker="Maya").id
        kept = LONG.replace("Maya", "Ines").replace(SECRET, "The bins go out on Tuesday")
        kept_id = vault.write(kept, permanent=True).id
    return {"long": long_id, "short": short_id, "permanent": kept_id}


def every_doc_text(vault: MemVault) -> str:
    return json.dumps(
        [
            d.body
            for kind in (RUN, JOURNAL, PENDING, REVIEW)
            for d in vault.store.list_docs("default", kind, limit=10_000)
        ]
    )


def test_the_offline_digest_keeps_whole_named_sentences_within_the_limit() -> None:
    digest = extractive_digest(LONG, 200)
    assert len(digest) <= 200
    assert digest.startswith("Maya moved the billing service to Postgres 16 on March 3.")
    assert all(s.strip(". ") in LONG for s in digest.split(". "))  # sentences, never rewritten
    assert "RB-12" in extractive_digest(LONG, 400)
    assert extractive_digest("short enough", 400) == "short enough"
    assert len(clip_chars("word " * 300, 50)) <= 50 and clip_chars("word " * 300, 50).endswith("…")
    assert headline(LONG, 60) == "Maya moved the billing service to Postgres 16 on March 3."


def test_a_headline_keeps_a_short_text_whole_and_a_greeting_gives_way_to_content() -> None:
    said = "Thanks, Gina! I won't quit, whatever comes my way."
    assert headline(said, 120) == said  # it fits: nothing to cut
    turn = (
        "Hey Mel! So good to hear from you, it has been such a long while since we talked. "
        "I finally ran the Lisbon half marathon on 12 May in 1:58. "
        "Anyway, how are the kids doing these days?"
    )
    frozen = headline(extractive_digest(turn, 120), 120)
    assert "Lisbon half marathon on 12 May in 1:58" in frozen and "good to hear" not in frozen
    # a session opener from LoCoMo: its greetings took the room of the event and its time
    opener = (
        "Hey John! Hope you're doing good. Guess what? I went to a castle during my trip to "
        "the UK last Friday and it was unbelievable! The architecture and the history were "
        "amazing!"
    )
    kept = headline(extractive_digest(opener, 400), 120)
    assert "castle during my trip to the UK last Friday" in kept and "Hey John" not in kept
    # the frozen tier digests straight to the headline's size: the sentence that dates the
    # memory ("last week") outweighs greetings and a rarer exclamation
    met = (
        "Hey Sam, how's it going? Last week I went on a trip to Canada and something unreal "
        "happened - I met this amazing woman. She's incredible and being with her makes me "
        "feel alive."
    )
    rare = rarity([met, opener, "Hey Sam! How is the new job going?", "Guess what? Big news."])
    for text in (opener, met):
        short = extractive_digest(text, 120, rare)
        assert "last Friday" in short or "Last week" in short, short
    assert headline("I quit! " + "Then a long day at work went on and on. " * 5, 40) == "I quit!"


def test_use_stretches_the_half_life_up_to_the_cap_and_the_stretch_fades() -> None:
    now = T0 + timedelta(days=10)
    assert half_life_stretch(0, None, now, 10, 30) == 1.0
    assert half_life_stretch(2, now, now, 10, 30) == 3.0
    assert half_life_stretch(50, now, now, 10, 30) == 10.0  # capped
    assert half_life_stretch(4, now - timedelta(days=15), now, 10, 30) == 3.0  # half faded
    assert half_life_stretch(4, now - timedelta(days=31), now, 10, 30) == 1.0


def test_compression_is_one_way_and_undo_restores_only_within_retention(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    ids = write_history(path)
    with open_vault(path, LATER) as vault:
        preview = vault.tiers()
        assert preview["status"] == "planned" and preview["run_id"] is None
        assert vault.get_episode(ids["long"]).content == LONG  # a dry run writes nothing
        assert preview["next"]["digests"] == 1 and preview["next"]["protected"] == {"permanent": 1}
        done = vault.tiers(apply=True)
        long = vault.get_episode(ids["long"])
        assert long.tier == Tier.COLD and len(long.content) <= 400
        assert SECRET not in long.content and long.metadata["digest"]["chars_before"] == len(LONG)
        short = vault.get_episode(ids["short"])
        assert short.tier == Tier.COLD and short.content == "Tomas likes oat milk"
        assert "digest" not in short.metadata  # short enough: nothing dropped, nothing claimed
        assert vault.get_episode(ids["permanent"]).content.startswith("Ines moved")
        assert vault.get_episode(ids["permanent"]).tier == Tier.WARM
        stats = vault.stats()
        assert stats["digests"] == 1 and stats["tiers"] == {"cold": 2, "warm": 1}

        hit = next(h for h in vault.recall("billing Postgres migration") if h.id == ids["long"])
        assert (hit.tier, hit.digest) == (Tier.COLD, "digest")
        assert SECRET not in " ".join(h.text for h in vault.recall("spare key flowerpot"))
        vault.record_access([ids["long"]])  # used again: warmer, the digest stays
        warmed = vault.get_episode(ids["long"])
        assert warmed.tier == Tier.HOT and warmed.content == long.content
        vault.undo_dream(done["run_id"], force=True)  # within retention: the text comes back
        assert vault.get_episode(ids["long"]).content == LONG

    with open_vault(path, LATER) as vault:
        again = vault.tiers(apply=True)
        assert SECRET in every_doc_text(vault)  # the journal keeps it for the retention
    with open_vault(path, LATER + timedelta(days=31)) as vault:
        vault.tiers(apply=True)  # any applied run forgets what is past the retention
        assert SECRET not in every_doc_text(vault)
        vault.undo_dream(again["run_id"], force=True)  # its tier moves left the journal
        restored = vault.get_episode(ids["long"])
        assert SECRET not in restored.content and restored.metadata["digest"]["level"] == "digest"
        assert restored.tier == Tier.COLD
        dump = tmp_path / "dump.jsonl"
        with dump.open("w") as out:
            vault.export(out)
        assert SECRET not in dump.read_text()


def test_a_year_unused_leaves_a_headline_and_a_headline_is_never_redone(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    ids = write_history(path)
    with open_vault(path, LATER) as vault:
        vault.tiers(apply=True)
    with open_vault(path, T0 + timedelta(days=400)) as vault:
        report = vault.tiers(apply=True)
        assert report["next"]["headlines"] == 1
        frozen = vault.get_episode(ids["long"])
        assert frozen.tier == Tier.FROZEN and len(frozen.content) <= 120
        assert frozen.speaker == "Maya" and frozen.session_id == "s1"  # who, where, when stay
        assert frozen.occurred_at == T0 and frozen.metadata["digest"]["chars_before"] == len(LONG)
        vault.record_access([ids["long"]])
    with open_vault(path, T0 + timedelta(days=900)) as vault:
        nothing = vault.tiers(apply=True)
        assert nothing["next"]["headlines"] == 0  # frozen again, the headline as it was
        assert vault.get_episode(ids["long"]).content == frozen.content


def test_a_compressed_memory_is_still_found_by_its_own_words_and_meaning(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    ids = write_history(path)
    with open_vault(path, T0) as vault:
        for n in range(8):  # other memories about keys and flowerpots, never compressed away
            vault.write(f"Note {n}: the red flowerpot by the door needs water", permanent=True)
        meaning = vault.store.get_vectors("default", "episode", [ids["long"]])[ids["long"]]
    for clock, level in ((LATER, "digest"), (T0 + timedelta(days=400), "headline")):
        with open_vault(path, clock) as vault:
            vault.tiers(apply=True)
            e = vault.get_episode(ids["long"])
            assert e.metadata["digest"]["level"] == level and "flowerpot" not in e.content
            cues = e.metadata["digest"]["cues"].split()
            assert {"spare", "key", "blue", "flowerpot"} <= set(cues) and cues == sorted(cues)
            assert SECRET not in json.dumps(e.model_dump(mode="json"))  # words, not the sentence
            hits = vault.recall("where is the spare key? under the blue flowerpot", k=3)
            assert hits[0].id == ids["long"] and SECRET not in hits[0].text
            assert hits[0].digest == level
            words = vault.store.keyword_topk("default", "episode", ["spare", "blue"], 3)
            assert [i for i, _ in words] == [ids["long"]]  # the keyword index has its words
            kept = vault.store.get_vectors("default", "episode", [ids["long"]])[ids["long"]]
            assert (kept == meaning).all()  # found by what it meant, not by the digest's words
    with open_vault(path, T0 + timedelta(days=400)) as vault:
        for name in ("Tomas", "Dana"):  # named only in the dropped text: still found, to erase
            assert ids["long"] in vault.forget_subject(name).episode_ids


def test_limits_hold_when_the_model_answers_too_much(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    ids = write_history(path)
    rambling = {"digests": [{"id": ids["long"], "text": "blah " * 2000}]}
    llm = LiteLLMProvider("gpt-4o-mini", mock_response=json.dumps(rambling))
    with open_vault(path, LATER, llm=llm) as vault:
        vault.tiers(apply=True)
        assert len(vault.get_episode(ids["long"]).content) <= 400
    with open_vault(path, T0 + timedelta(days=400), llm=llm) as vault:
        vault.tiers(apply=True)  # the model's headline is as long: clipped to one line
        assert len(vault.get_episode(ids["long"]).content) <= 120
    assert llm.usage.snapshot()["tiers.digest"]["calls"] == 2  # the short text needs no call


def test_an_ignited_or_confirmed_memory_is_never_compressed(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    texts = [  # distinct enough not to be merged as near-duplicates
        " ".join(f"Topic t{i}x{j} came up on day {i}." for j in range(20)) for i in range(4)
    ]
    with open_vault(path, T0) as vault:
        ids = [vault.write(t, now=T0 + timedelta(hours=i)).id for i, t in enumerate(texts)]
    settings = {"hygiene": {"ttl_turns": 1}, "tiers": {"used_grace": 1}}  # protection alone
    with open_vault(path, T0 + timedelta(days=3), dream=settings) as vault:
        for _ in range(3):
            vault.record_access([ids[0]])  # in use: its half-life stretched 4×
        vault.reinforce([ids[1]])  # confirmed useful
        report = vault.dream(apply=True, force=True).report["stages"]
        assert sorted(report["janitor"]["cold"]) == sorted(ids[:3])  # the TTL keeps one turn
        assert report["tiers"]["protected"] == {"confirmed": 1, "ignited": 1}
        whole = [vault.get_episode(i).content == t for i, t in zip(ids, texts, strict=True)]
    assert whole == [True, True, False, True]  # only the one nobody used was digested


def test_the_tiers_command_previews_and_refuses_bad_settings(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    write_history(path)
    env = {"MEMVAULT_DB_PATH": str(path), "MEMVAULT_EMBEDDER": "hashing"}
    out = CliRunner().invoke(app, ["tiers", "--json"], env=env)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["status"] == "planned" and {c["level"] for c in data["counts"]} == {"full"}
    assert data["next"]["headlines"] == 1  # written in 2025, unused since: a headline next
    bad = CliRunner().invoke(
        app,
        ["tiers"],
        env={**env, "MEMVAULT_DREAM__TIERS__AFTER_DAYS": '{"episodic": [90, 30, null]}'},
    )
    assert bad.exit_code != 0 and "dream.tiers.after_days.episodic" in bad.output


def old_fact_and_turns(vault: MemVault) -> None:
    vault.add_fact("Maya", "lives_in", "Oslo", valid_at=T0 - timedelta(days=700), now=T0)
    for i in range(3):
        vault.write(f"turn {i} about the garden", now=T0 + timedelta(hours=i))


def test_the_janitor_writes_its_snapshot_each_run(tmp_path: Path) -> None:
    at = T0 + timedelta(days=700)  # the fact's confidence has decayed below the cull floor
    with open_vault(tmp_path / "v.db", at, dream={"hygiene": {"ttl_turns": 2}}) as vault:
        old_fact_and_turns(vault)
        assert vault.stats()["janitor"] is None
        vault.dream(apply=True, force=True)
        snap = vault.stats()["janitor"]
        assert snap["totalRuns"] == 1 and snap["lastRunTurn"] == 3
        assert snap["lastRunAt"] == at.isoformat() and snap["schedule"] == "onConsolidation"
        assert len(snap["lastCulledFactIds"]) == 1
        assert len(snap["lastCulledEpisodeIds"]) == 3  # past ttl_days: handed to the tiers
        vault.dream(apply=True, force=True)
        again = vault.stats()["janitor"]
        assert again["totalRuns"] == 2 and again["lastCulledFactIds"] == []  # overwritten


def test_a_manual_janitor_runs_only_when_asked(tmp_path: Path) -> None:
    at = T0 + timedelta(days=700)
    with open_vault(tmp_path / "v.db", at, dream={"hygiene": {"schedule": "manual"}}) as vault:
        old_fact_and_turns(vault)
        stages = vault.dream(apply=True, force=True).report["stages"]
        assert stages["janitor"] == {"enabled": True, "skipped": "schedule manual"}
        assert len(vault.facts()) == 1 and vault.stats()["janitor"] is None
        preview = vault.janitor()
        assert preview["status"] == "planned" and len(preview["janitor"]["culled"]) == 1
        assert len(vault.facts()) == 1  # a dry run changes nothing
        done = vault.janitor(apply=True)
        assert vault.facts() == [] and done["snapshot"]["totalRuns"] == 1
        vault.undo_dream(done["run_id"])
        assert len(vault.facts()) == 1


def test_on_capture_the_janitor_runs_after_enough_writes(tmp_path: Path) -> None:
    hygiene = {"schedule": "onCapture", "capture_every_turns": 3}
    with open_vault(tmp_path / "v.db", T0, dream={"hygiene": hygiene}) as vault:
        vault.write("first", now=T0)
        vault.write("second", now=T0)
        assert vault.stats()["janitor"] is None
        vault.write_many([{"content": "third"}, {"content": "fourth"}], now=T0)
        assert vault.stats()["janitor"]["lastRunTurn"] == 4
        vault.write("fifth", now=T0)
        assert vault.stats()["janitor"]["totalRuns"] == 1  # 1 new since: not yet


def test_confidence_decay_off_stops_the_cull_and_recall_s_age_decay(tmp_path: Path) -> None:
    at = T0 + timedelta(days=700)
    off = {"hygiene": {"confidence_decay": False}}
    with open_vault(tmp_path / "v.db", at, dream=off) as vault:
        old_fact_and_turns(vault)
        assert vault.settings.recall.age_decay is False
        hit = vault.recall("garden turn")[0]
        assert hit.explanation.factors.decay == 1.0
        (fact,) = vault.facts()
        hit = next(h for h in vault.recall("where does Maya live") if h.kind == "fact")
        assert hit.explanation.factors.confidence == fact.confidence  # 700 days, undecayed
        vault.dream(apply=True, force=True)
        assert len(vault.facts()) == 1  # never culled
    with open_vault(tmp_path / "v.db", at) as vault:
        assert vault.recall("garden turn")[0].explanation.factors.decay < 1.0


def test_the_janitor_command_previews(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    write_history(path)
    env = {"MEMVAULT_DB_PATH": str(path), "MEMVAULT_EMBEDDER": "hashing"}
    out = CliRunner().invoke(app, ["janitor", "--json"], env=env)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["status"] == "planned" and data["snapshot"] is None
    assert data["tiers"]["headlines"] == 1
    text = CliRunner().invoke(app, ["stats"], env=env)
    assert text.exit_code == 0 and "janitor" in text.output


def test_a_memory_used_once_keeps_its_text_twice_as_long(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    ids = write_history(path)
    with open_vault(path, T0 + timedelta(days=1)) as vault:
        vault.record_access([ids["long"]])  # used once, then never again
    with open_vault(path, T0 + timedelta(days=101)) as vault:  # 100 idle days: past cold (60)
        vault.tiers(apply=True)
        assert vault.get_episode(ids["long"]).content == LONG  # but not past 2 × 60
    with open_vault(path, T0 + timedelta(days=125)) as vault:
        vault.tiers(apply=True)
        assert SECRET not in vault.get_episode(ids["long"]).content


def test_an_imported_history_is_not_compressed_the_night_it_arrives(tmp_path: Path) -> None:
    """Issue 30.7: a year-old conversation imported today starts its time of use today. The
    janitor's episodic TTL (here: every turn, by age) sends it cold only once it has been in
    the vault past the warm threshold, and the reason says which rule moved it."""
    imported_at = T0 + timedelta(days=400)
    turns = [
        {"content": f"Day {i}: we planted {i} rows of leeks in plot {i * 7}.", "session_id": "s1",
         "occurred_at": T0 + timedelta(hours=i)}
        for i in range(6)
    ]  # fmt: skip
    settings = {"hygiene": {"ttl_turns": 2}}
    with open_vault(tmp_path / "v.db", imported_at, dream=settings) as vault:
        vault.write_many(turns)
        vault.dream(apply=True, force=True)
        assert {e.tier for e in vault.episodes()} == {Tier.HOT}  # nothing compressed tonight
        assert all(e.content.startswith("Day") for e in vault.episodes())
    with open_vault(tmp_path / "v.db", imported_at + timedelta(days=8), dream=settings) as vault:
        run = vault.dream(apply=True, force=True)
        cold = [e for e in vault.episodes() if e.tier == Tier.COLD]
        assert len(cold) == 6  # past ttl_days by when they happened, a week after the import
        assert run.plan is not None
        reasons = {r.why for c in run.plan.changes for r in c.reasons}
        ttl = "past the episodic TTL (hygiene.ttl_turns / ttl_days), unused 8 days: hot → cold"
        assert all(why.startswith(ttl) for why in reasons), reasons  # the rule that moved it
