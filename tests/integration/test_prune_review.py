"""The model's prune review after the janitor (31.7): with a model, busy subjects' live facts
are reviewed for contradiction and repetition; the proposals are a dry run first, wait for a
human (their confidence is capped), end a contradicted fact's validity instead of erasing it
(as-of reads still answer it), and undo restores them. Offline the pass proposes nothing and
says why. The model is scripted at the LLM port; the prompt's parsing through litellm is
tested with its mock_response."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memvault import FixedClock, MemVault
from memvault.bootstrap import offline_handlers
from memvault.embed import HashingEmbedder
from memvault.llm import LiteLLMProvider, OfflineProvider, UsageLedger
from memvault.llm.port import Prompt
from memvault.llm.prune_prompt import PruneVerdict, PruneVerdicts, prune_v1

T = datetime(2024, 1, 10, tzinfo=UTC)
NOW = datetime(2025, 6, 1, tzinfo=UTC)
FACTS = [  # (predicate, object, statement, days after T)
    ("diet", "vegetarian", "Maya is vegetarian", 0),
    ("likes", "tea", "Maya likes green tea", 10),
    ("plays", "chess", "Maya plays chess on Sundays", 20),
    ("owns", "bike", "Maya owns a red bike", 30),
    ("speaks", "portuguese", "Maya speaks Portuguese", 40),
    ("reads", "sci-fi", "Maya reads science fiction", 50),
    ("enjoys", "tea", "Maya enjoys green tea", 60),
    ("eats", "steak", "Maya eats steak every day now", 400),
]


class Scripted:
    """A model that answers the prune prompt by the statements it was shown and leaves every
    other prompt to the offline rules."""

    name = "scripted"

    def __init__(self) -> None:
        self.usage = UsageLedger()
        self.offline = OfflineProvider(offline_handlers())
        self.prune_calls = 0

    def complete(self, prompt: Prompt[Any], *, call_site: str) -> Any:
        if prompt.name != "prune":
            return self.offline.complete(prompt, call_site=call_site)
        self.prune_calls += 1
        lines = prompt.inputs["facts"]

        def n(text: str) -> int:
            return next(i for i, line in enumerate(lines, 1) if text in line)

        return PruneVerdicts(
            verdicts=[
                PruneVerdict(
                    fact=n("is vegetarian"),
                    kind="contradicted",
                    because_of=n("eats steak"),
                    reason="eats meat now",
                    confidence=0.97,
                ),
                PruneVerdict(
                    fact=n("enjoys green tea"),
                    kind="repeated",
                    because_of=n("likes green tea"),
                    reason="same",
                    confidence=0.9,
                ),
                PruneVerdict(fact=99, kind="repeated", because_of=1, reason="no such fact"),
            ]
        )


def _vault(path: Path, llm: Any = None, **settings: Any) -> MemVault:
    parts = {"llm": llm} if llm is not None else {}
    return MemVault.open(
        path, embedder=HashingEmbedder(), clock=FixedClock(NOW), **parts, **settings
    )


def _write(vault: MemVault) -> None:
    vault.add_facts(
        [
            {
                "subject": "Maya",
                "predicate": p,
                "object": o,
                "statement": s,
                "valid_at": T + timedelta(days=d),
            }
            for p, o, s, d in FACTS
        ]
    )


def test_a_model_s_prune_review_waits_for_a_human_and_keeps_history(tmp_path: Path) -> None:
    model = Scripted()
    on = {"dream": {"prune_review": {"enabled": True, "min_facts": 8}}}
    with _vault(tmp_path / "v.db", model, **on) as vault:
        _write(vault)
        dry = vault.dream(force=True)
        review = dry.report["stages"]["prune_review"]
        assert (review["subjects"], review["contradicted"], review["repeated"]) == (1, 1, 1)
        assert review["ignored"] == 1  # a number that names no fact
        ops = {c.op for c in dry.plan.changes}
        assert {"prune.contradicted", "prune.repeated"} <= ops
        assert len(vault.facts()) == 8  # a dry run changes nothing

        run = vault.dream(force=True, apply=True)
        assert run.review_ids  # capped confidence: a human decides
        assert len(vault.facts()) == 8
        for item in vault.review_items():
            ops = {r["op"] for c in item["changes"] for r in c["reasons"]}
            if any(op.startswith("prune.") for op in ops):
                vault.approve(item["id"])
        now = {f.statement for f in vault.facts()}
        assert "Maya is vegetarian" not in now and "Maya enjoys green tea" not in now
        assert "Maya eats steak every day now" in now and "Maya likes green tea" in now
        veg = next(f for f in vault.facts(include_history=True) if f.object == "vegetarian")
        assert veg.invalid_at == T + timedelta(days=400) and veg.expired_at is None
        then = {f.statement for f in vault.facts(as_of=T + timedelta(days=100))}
        assert "Maya is vegetarian" in then  # as-of history kept

        vault.undo_dream(run.run_id or "")
        assert {f.statement for f in vault.facts()} == {s for _, _, s, _ in FACTS}
        # the undo rewrote Maya's facts, so the next dream asks again; once nothing about
        # her is new, the model is not asked
        vault.dream(force=True, apply=True)
        calls = model.prune_calls
        vault.dream(force=True, apply=True)
        assert model.prune_calls == calls


def test_offline_or_off_the_pass_proposes_nothing(tmp_path: Path) -> None:
    on = {"dream": {"prune_review": {"enabled": True, "min_facts": 8}}}
    with _vault(tmp_path / "off.db", **on) as vault:
        _write(vault)
        review = vault.dream(force=True).report["stages"]["prune_review"]
        assert review["subjects"] == 0 and "no verdicts" in (review["skipped"] or "")
    with _vault(tmp_path / "default.db", Scripted()) as vault:
        _write(vault)
        assert vault.dream(force=True).report["stages"]["prune_review"] == {"enabled": False}


def test_the_prune_prompt_parses_through_litellm() -> None:
    answer = {"verdicts": [{"fact": 1, "kind": "repeated", "because_of": 2, "reason": "same",
                            "confidence": 0.8}]}  # fmt: skip
    model = LiteLLMProvider("gpt-4o-mini", mock_response=json.dumps(answer))
    got = model.complete(prune_v1("Maya", ["2024-01-01 a", "2024-02-01 b"]), call_site="t")
    assert got.verdicts[0].fact == 1 and got.verdicts[0].kind == "repeated"
