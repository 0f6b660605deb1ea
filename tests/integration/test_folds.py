"""Folds and the session primer: one digest per memory type, rewritten in place within a
hard budget; a second run reads nothing; a killed run resumes after its last committed
batch; the primer stays within its budget whatever the history's length."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder
from memvault.errors import ConfigError, InvalidBatchError, InvalidInputError
from memvault.folds import clip, tokens
from memvault.kg.model import MemoryType
from memvault.language.fold_lines import extractive_fold
from memvault.llm import LiteLLMProvider

T0 = datetime(2025, 1, 1, tzinfo=UTC)
NOW = datetime(2025, 12, 1, tzinfo=UTC)


def history(vault: MemVault, n: int, *, start: int = 0) -> None:
    for i in range(start, start + n):
        vault.write(
            f"note {i}: the garden bed {i % 7} needs compost",
            speaker="Maya",
            session_id=f"s{i // 10}",
            type="project" if i % 5 == 0 else "episodic",
            now=T0 + timedelta(hours=i),
        )


def open_vault(path: Path, **kw: object) -> MemVault:
    return MemVault.open(path, embedder=HashingEmbedder(), clock=FixedClock(NOW), **kw)


def test_the_offline_fold_is_extractive_newest_first_and_within_budget() -> None:
    digest = extractive_fold(
        "- 2025-01-01 Maya: I live in Berlin.",
        ["- 2025-06-01 Maya: I moved to Lisbon.", "- 2025-07-01 Maya: I live in Berlin."],
        budget_tokens=40,
    )
    # a repeated statement keeps its newest date; newest first
    assert digest.splitlines() == [
        "- 2025-07-01 Maya: I live in Berlin.",
        "- 2025-06-01 Maya: I moved to Lisbon.",
    ]
    long = [f"- 2025-01-{d:02d} note number {d} about something" for d in range(1, 29)]
    assert tokens(extractive_fold("", long, budget_tokens=50)) <= 50
    assert tokens(clip("word " * 500, 30)) <= 30


def test_fold_twice_reads_nothing_the_second_time_and_the_primer_holds(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db", fold={"batch_notes": 8}) as vault:
        history(vault, 30)
        dry = vault.fold()
        assert dry.per_type["episodic"]["new"] == 24 and dry.per_type["project"]["new"] == 6
        assert dry.calls == 0
        first = vault.fold(apply=True)
        assert first.per_type["episodic"]["batches"] == 3  # 24 notes, 8 per call
        assert first.per_type["project"]["batches"] == 1
        assert vault.fold(apply=True).calls == 0  # nothing new: no call
        history(vault, 5, start=30)
        assert vault.fold(apply=True).per_type["episodic"]["new"] == 4
        block = vault.primer(budget_tokens=120)
        assert block.tokens <= 120
        assert block.clipped  # 35 notes do not fit in 120 tokens
        assert block.episodes_covered == 35
        assert block.text.startswith("Work in progress")  # project before episodic
        full = vault.primer()
        assert "note 34" in full.text and full.ratio > 0
        with pytest.raises(InvalidInputError, match="budget"):
            vault.primer(budget_tokens=10)


def test_a_dream_touching_old_episodes_does_not_fold_them_again(tmp_path: Path) -> None:
    with open_vault(tmp_path / "v.db") as vault:
        history(vault, 12)
        vault.fold(apply=True)
        vault.dream(apply=True, force=True)  # decays, merges: rewrites episodes (new seq)
        hits = vault.recall("garden compost")
        vault.record_access([h.id for h in hits])
        assert vault.fold(apply=True).calls == 0


def test_the_model_s_digest_is_clipped_to_the_budget(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with open_vault(path) as vault:
        history(vault, 10)
    rambling = json.dumps({"digest": "\n".join(f"- 2025-01-01 point {i}" for i in range(500))})
    llm = LiteLLMProvider("gpt-4o-mini", mock_response=rambling)
    with open_vault(path, llm=llm, fold={"budget_tokens": 60}) as vault:
        report = vault.fold(apply=True)
        usage = llm.usage.snapshot()
        (cell,) = vault.store.get_docs("default", "fold", ["episodic"])
    assert usage["fold"]["calls"] == report.calls == 2  # one batch of each type written
    assert tokens(cell.body["digest"]) <= 60
    assert cell.body["digest"].startswith("- 2025-01-01 point 0")


KILLER = textwrap.dedent(
    """
    import os, signal, sys
    from datetime import datetime
    from memvault import FixedClock, MemVault
    from memvault.embed import HashingEmbedder
    from memvault.folds import Folder

    path, now = sys.argv[1], datetime.fromisoformat(sys.argv[2])
    vault = MemVault.open(path, embedder=HashingEmbedder(), clock=FixedClock(now),
                          fold={"batch_notes": 5})
    folder = Folder(vault.store, vault.c.llm, vault.settings.fold)

    def die(kind, done):
        if kind == "episodic" and done == 2:
            os.kill(os.getpid(), signal.SIGKILL)

    folder.fold("default", now=now, apply=True, on_batch=die)
    """
)


def test_a_killed_fold_resumes_after_its_last_committed_batch(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with open_vault(path) as vault:
        history(vault, 25)  # 20 episodic: four batches of five
    done = subprocess.run(
        [sys.executable, "-c", KILLER, str(path), NOW.isoformat()],
        capture_output=True,
        timeout=120,
        env={**os.environ},
    )
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    with open_vault(path, fold={"batch_notes": 5}) as vault:
        (cell,) = vault.store.get_docs("default", "fold", ["episodic"])
        assert cell.body["episodes"] == 10  # two batches committed before the kill
        resumed = vault.fold(apply=True)
        assert resumed.per_type["episodic"] == {"new": 10, "batches": 2, "calls": 2}
        (cell,) = vault.store.get_docs("default", "fold", ["episodic"])
        assert cell.body["episodes"] == 20
        assert vault.fold(apply=True).calls == 0


def test_bad_fold_settings_are_refused_naming_the_setting(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="budget_tokens"):
        open_vault(tmp_path / "v.db", fold={"budget_tokens": 0})
    with pytest.raises(ConfigError, match="batch_notes"):
        open_vault(tmp_path / "v.db", fold={"batch_notes": -1})


def test_cli_fold_and_primer(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    with open_vault(path) as vault:
        history(vault, 12)
    from typer.testing import CliRunner

    from memvault.cli.main import app

    env = {"MEMVAULT_DB_PATH": str(path), "MEMVAULT_EMBEDDER": "hashing"}

    def run(*args: str) -> Any:
        return CliRunner().invoke(app, list(args), env=env)

    dry = json.loads(run("fold", "--json").stdout)
    assert dry["applied"] is False and dry["types"]["episodic"]["new"] == 9
    assert json.loads(run("fold", "--apply", "--json").stdout)["types"]["episodic"]["calls"] == 1
    block = json.loads(run("primer", "--budget", "80", "--json").stdout)
    assert block["primer_tokens"] <= 80 and block["episodes_covered"] == 12
    bad = run("primer", "--budget", "5")
    assert bad.exit_code == 2 and "budget" in bad.output


def test_digests_travel_in_the_logical_dump(tmp_path: Path) -> None:
    import io

    with open_vault(tmp_path / "v.db") as vault:
        history(vault, 20)
        vault.fold(apply=True)
        text = vault.primer().text
        out = io.StringIO()
        vault.export(out)
    dump = out.getvalue()
    lines = dump.splitlines()
    assert json.loads(lines[0])["version"] == 4
    folds = [json.loads(x) for x in lines if '"type": "fold"' in x]
    assert [f["id"] for f in folds] == ["episodic", "project"]  # sorted, one per folded type
    with open_vault(tmp_path / "copy.db") as copy:
        summary = copy.import_(io.StringIO(dump))
        assert summary.counts["fold"] == 2
        assert copy.primer().text == text
        assert copy.fold(apply=True).calls == 0  # the cursor came along: nothing is new
        copy.import_(io.StringIO(dump), namespace="elsewhere")
        assert copy.primer(namespace="elsewhere").text == text
    bad = [*lines, json.dumps({"type": "fold", "id": "mood", "data": {"digest": "x"}})]
    with open_vault(tmp_path / "third.db") as other, pytest.raises(InvalidBatchError) as err:
        other.import_(io.StringIO("\n".join(bad)))
    assert err.value.problems[0].where == f"line {len(bad)}"
    # a dump written before folds existed (version 1) still imports
    v1 = [json.dumps({**json.loads(lines[0]), "version": 1})]
    v1 += [x for x in lines[1:] if '"type": "fold"' not in x]
    with open_vault(tmp_path / "fourth.db") as old:
        assert old.import_(io.StringIO("\n".join(v1))).counts["fold"] == 0


def test_undo_gives_back_each_digest_as_it_was_before_its_last_run(tmp_path: Path) -> None:
    from memvault.folds import cells

    with open_vault(tmp_path / "v.db") as vault:
        history(vault, 30)
        vault.fold(apply=True)
        first = {t.value: c.digest for t, c in cells(vault.store, "default").items()}
        history(vault, 20, start=30)
        vault.fold(apply=True)
        second = {t.value: c.digest for t, c in cells(vault.store, "default").items()}
        assert second["episodic"] != first["episodic"]

        preview = vault.undo_fold()
        assert preview["episodic"]["episodes_restored"] < preview["episodic"]["episodes_now"]
        assert cells(vault.store, "default")[MemoryType.EPISODIC].digest == second["episodic"]

        vault.undo_fold(apply=True)
        now = cells(vault.store, "default")
        assert now[MemoryType.EPISODIC].digest == first["episodic"]
        assert now[MemoryType.EPISODIC].history[0]["digest"] == second["episodic"]  # kept
        assert vault.undo_fold() == {}  # one step back, no further

        report = vault.fold(apply=True)  # the undone episodes are folded again
        assert report.per_type["episodic"]["new"] > 0
        again = cells(vault.store, "default")[MemoryType.EPISODIC].digest
        assert again == second["episodic"]


PARTS = ["login page", "billing screen", "search box", "export job", "settings form"]
PEOPLE = ["Ana", "Bo", "Chen", "Dara"]


def observation(text: str, project: str, at: datetime) -> dict[str, Any]:
    """An episode as the claude-mem import writes it (memory type project, its project)."""
    return {
        "content": text,
        "type": "project",
        "occurred_at": at,
        "metadata": {"claude_mem": {"project": project, "type": "change"}},
    }


def test_a_fold_keeps_an_old_version_string_and_resolves_recency(tmp_path: Path) -> None:
    """31.3: the offline fold keeps the detail that still stands (a version pinned months
    ago) over newer routine progress, and of a command revised later keeps the newer."""
    items = [observation("Pinned numpy to 1.26.4 in requirements.txt; 2.0 broke the build.",
                         "billing", T0)]  # fmt: skip
    items += [
        observation(
            f"Worked on the {PARTS[i % 5]} with {PEOPLE[i % 4]}; small fixes here and there.",
            "billing",
            T0 + timedelta(days=1, hours=i),
        )
        for i in range(150)
    ]
    items.append(observation("Deploy with `make release` after tagging v2.3.0.", "billing",
                             T0 + timedelta(days=20)))  # fmt: skip
    items.append(observation("Deploy with `make release` after tagging v2.4.1.", "billing",
                             T0 + timedelta(days=30)))  # fmt: skip
    with open_vault(tmp_path / "v.db") as vault:
        vault.write_many(items)
        vault.fold(apply=True)
        digest = vault.primer(project="billing").text
        assert "1.26.4" in digest and "requirements.txt" in digest  # 150 notes later
        assert "v2.4.1" in digest and "v2.3.0" not in digest  # the newer command stands
        assert tokens(digest) <= vault.settings.fold.primer_tokens
    # the pure fold over the same notes in one batch keeps it too
    lines = [f"- 2025-01-{1 + i // 10:02d} {it['content']}" for i, it in enumerate(items)]
    assert "1.26.4" in extractive_fold("", lines, 350)


def test_folds_per_project_primer_economics_forget_and_dump(tmp_path: Path) -> None:
    """31.3: one digest per (project, type); a project's primer holds its digests and the
    namespace's own for the other types; the economics table per project; a forget resets
    the project's cell; the dump carries project cells."""
    with open_vault(tmp_path / "v.db") as vault:
        billing = vault.write_many(
            [
                observation(
                    f"Billing: invoice rounding fixed in src/billing/round_{i}.py",
                    "billing",
                    T0 + timedelta(hours=i),
                )
                for i in range(12)
            ]
        ).episode_ids
        vault.write_many(
            [
                observation(
                    f"Search: index rebuilt with `make index-{i}`",
                    "search",
                    T0 + timedelta(hours=i),
                )
                for i in range(8)
            ]
        )
        vault.write("Prefers short answers without emojis.", type="user", now=T0)
        report = vault.fold(apply=True)
        assert {"project@billing", "project@search", "user"} <= set(report.per_type)
        assert report.per_type["project@billing"]["new"] == 12
        assert vault.fold(apply=True).calls == 0  # nothing new anywhere

        mine = vault.primer(project="billing").text
        assert "round_11.py" in mine and "make index" not in mine
        assert "short answers" in mine  # the namespace's own user digest
        whole = vault.primer().text
        assert "Projects with their own digests: billing, search." in whole
        assert "round_11.py" not in whole

        rows = {r["project"]: r for r in vault.fold_economics()}
        assert rows["billing"]["observations"] == 12 and rows["search"]["observations"] == 8
        assert rows[""]["observations"] == 1
        assert all(r["digest_tokens"] > 0 and r["ratio"] > 0 for r in rows.values())

        dump = io.StringIO()
        vault.export(dump)
        assert '"id": "project@billing"' in dump.getvalue()
        dump.seek(0)
        vault.import_(dump, namespace="copy")
        assert "round_11.py" in vault.primer(namespace="copy", project="billing").text

        plan = vault.forget(billing[0])
        assert "project@billing" in plan.folds_reset
        assert "round_11.py" not in vault.primer(project="billing").text  # reset, refolded next
        vault.fold(apply=True, rebuild=True)
        assert "round_11.py" in vault.primer(project="billing").text
        assert "round_0.py" not in vault.primer(project="billing").text


def test_the_primer_starts_from_the_facts_true_now(tmp_path: Path) -> None:
    """A session started with the digests alone: nothing said where the user lives now,
    and an older value a newer one contests must not be handed over as current."""
    with open_vault(tmp_path / "v.db") as vault:
        vault.write("I live in Porto.", speaker="Maya", now=T0)
        vault.write("I work at Helio Labs.", speaker="Maya", now=T0 + timedelta(days=30))
        vault.write("I live in Lisbon now.", speaker="Maya", now=T0 + timedelta(days=200))
        ended = vault.add_fact(
            "Maya", "team", "billing", valid_at=T0, invalid_at=T0 + timedelta(days=90)
        )
        assert ended.id
        assert "Maya lives in Porto" in {f.statement for f in vault.facts()}  # no dream yet
        text = vault.primer().text
        section = text.split("\n\n")[0]
        assert section.splitlines() == [
            "What is true now (newest first):",
            "- Maya lives in Lisbon (since 2025-07-20)",
            "- Maya works at Helio Labs (since 2025-01-31)",
        ]
        assert "billing" not in text
        small = vault.primer(budget_tokens=60)
        assert tokens(small.text) <= 60 and small.sections[0] == "facts"
