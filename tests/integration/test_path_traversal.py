"""No writer reaches the operator's files: every place where a stored or imported string becomes
a path (MEMORY.md export and import, the dream's directory sync, plan hygiene's moves and
restores) refuses absolute paths, '..', separators, NUL, control characters, overlong names and
symlinks that lead out of the directory it was given."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from memvault import FixedClock, MemVault
from memvault.config import PlanSettings
from memvault.embed import HashingEmbedder
from memvault.errors import InvalidBatchError, InvalidInputError
from memvault.interop import plans
from memvault.interop.paths import inside, why_unsafe

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
HOSTILE = {
    "absolute": "/tmp/owned.md",
    "parent": "../../owned.md",
    "separator": "sub/owned.md",
    "backslash": "..\\owned.md",
    "nul": "own\x00ed.md",
    "control": "own\ned.md",
    "overlong": "a" * 300 + ".md",
    "dots": "..",
}


def open_vault(path: Path) -> MemVault:
    return MemVault.open(path, embedder=HashingEmbedder(), clock=FixedClock(NOW))


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_names_are_refused_with_the_reason(kind: str, tmp_path: Path) -> None:
    assert why_unsafe(HOSTILE[kind]) is not None
    with pytest.raises(InvalidInputError, match="cannot be used"):
        inside(tmp_path, HOSTILE[kind])


def test_a_plain_name_is_accepted_inside(tmp_path: Path) -> None:
    assert inside(tmp_path, "user_prefers_short.md") == tmp_path / "user_prefers_short.md"


def test_a_symlink_already_in_the_directory_is_not_followed_out(tmp_path: Path) -> None:
    outside = tmp_path / "operator.txt"
    outside.write_text("precious")
    d = tmp_path / "out"
    d.mkdir()
    (d / "link.md").symlink_to(outside)
    with pytest.raises(InvalidInputError, match="leads out"):
        inside(d, "link.md")


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_export_names_its_files_itself_whatever_a_writer_stored(kind: str, tmp_path: Path) -> None:
    """A namespace writer stores metadata.memory_dir.file as a path out of the export
    directory: the export writes only inside it, under a name memvault chose."""
    victim = tmp_path / "owned.md"
    out = tmp_path / "a" / "b" / "export"
    with open_vault(tmp_path / "v.db") as vault:
        meta = {
            "memory_dir": {
                "file": HOSTILE[kind],
                "name": "../../evil\nname",
                "title": "T]\n- [Forged](x.md",
                "hook": "h\n- [Forged](y.md)",
                "position": 0,
                "frontmatter": {"name": "x", "description": "d", "metadata": {"type": "user"}},
                "body": "Maya prefers tea.\n",
            }
        }
        vault.write_many([{"content": "Maya prefers tea.", "type": "user", "metadata": meta}])
        report = vault.export_memory_dir(out)
    assert report["files"] == 1
    assert not victim.exists()
    written = sorted(p.name for p in out.iterdir())
    assert len(written) == 2 and "MEMORY.md" in written
    assert all(why_unsafe(n) is None for n in written)
    assert not any(p.name == "owned.md" for p in tmp_path.rglob("*"))
    index = (out / "MEMORY.md").read_text().splitlines()
    assert len(index) == 1, "a newline in a stored title or hook forged an index line"


def test_export_refuses_to_write_through_a_symlink(tmp_path: Path) -> None:
    precious = tmp_path / "precious.md"
    precious.write_text("operator's file")
    out = tmp_path / "export"
    out.mkdir()
    with open_vault(tmp_path / "v.db") as vault:
        vault.write_many([{"content": "Standup at 9:30 now", "type": "project"}])
        (out / "MEMORY.md").symlink_to(precious)
        with pytest.raises(InvalidInputError, match="leads out"):
            vault.export_memory_dir(out)
    assert precious.read_text() == "operator's file"


def memory_file(name: str) -> str:
    front = yaml.safe_dump({"name": name, "description": "d", "metadata": {"type": "user"}})
    return f"---\n{front}---\nbody of {name}\n"


@pytest.mark.parametrize("target", ["../secret.md", "/etc/passwd", "a/b.md", "x\x00.md"])
def test_import_lists_an_index_line_that_points_out(target: str, tmp_path: Path) -> None:
    d = tmp_path / "mem"
    d.mkdir()
    (d / "ok.md").write_text(memory_file("ok"))
    (d / "MEMORY.md").write_text(f"- [Ok](ok.md)\n- [Out]({target})\n")
    with open_vault(tmp_path / "v.db") as vault, pytest.raises(InvalidBatchError) as err:
        vault.import_memory_dir(d)
    assert any(p.where == "MEMORY.md:2" and "cannot point" in p.message for p in err.value.problems)


def linked_out(tmp_path: Path) -> Path:
    """A memory directory whose only file is a link to a memory file outside it."""
    secret = tmp_path / "secret.md"
    secret.write_text(memory_file("secret"))
    d = tmp_path / "mem"
    d.mkdir()
    (d / "link.md").symlink_to(secret)
    (d / "MEMORY.md").write_text("- [Link](link.md)\n")
    return d


def test_import_does_not_read_a_symlink_leading_out(tmp_path: Path) -> None:
    d = linked_out(tmp_path)
    with open_vault(tmp_path / "v.db") as vault:
        with pytest.raises(InvalidBatchError) as err:
            vault.import_memory_dir(d)
        assert vault.stats()["episodes"] == 0
    assert any("leads out" in p.message for p in err.value.problems)


def test_the_dream_sync_reports_a_link_out_and_proposes_nothing_from_it(tmp_path: Path) -> None:
    d = linked_out(tmp_path)
    with MemVault.open(
        tmp_path / "v.db",
        embedder=HashingEmbedder(),
        clock=FixedClock(NOW),
        sync={"memory_dirs": {"default": [str(d)]}},
    ) as vault:
        result = vault.dream(force=True, apply=True)
        assert not any("body of secret" in e.content for e in vault.episodes(limit=10))
    assert any("leads out" in p for p in result.report["stages"]["files"]["problems"])


def old(path: Path, days: float) -> None:
    t = (NOW - timedelta(days=days)).timestamp()
    os.utime(path, (t, t))


def test_plan_restore_refuses_names_that_leave_the_folder(tmp_path: Path) -> None:
    d = tmp_path / "plans"
    d.mkdir()
    (tmp_path / "victim.md").write_text("keep me")
    for name in ("../victim.md", "/etc/passwd", ".trash/../../victim.md", "a\x00b.md"):
        with pytest.raises(InvalidInputError):
            plans.restore(d, name)
    assert (tmp_path / "victim.md").read_text() == "keep me"


def test_plan_restore_refuses_a_forged_trash_record(tmp_path: Path) -> None:
    """A TRASH.jsonl edited to list '../../victim.md' as a sub-plan moves nothing out."""
    d = tmp_path / "plans"
    trash = d / ".trash"
    trash.mkdir(parents=True)
    (trash / "stub.md").write_text("# stub")
    (tmp_path / "victim.md").write_text("keep me")
    record = {"file": "stub.md", "sub_plans": ["../../victim.md"], "class": "stale"}
    (trash / "TRASH.jsonl").write_text(json.dumps(record) + "\n")
    with pytest.raises(InvalidInputError):
        plans.restore(d, "stub.md")
    assert (tmp_path / "victim.md").read_text() == "keep me"
    assert (trash / "stub.md").exists(), "nothing moved when the record was refused"


def test_plan_hygiene_does_not_move_into_a_trash_that_links_out(tmp_path: Path) -> None:
    d = tmp_path / "plans"
    d.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (d / ".trash").symlink_to(elsewhere)
    stub = d / "tiny.md"
    stub.write_text("# tiny")
    old(stub, 60)
    with pytest.raises(InvalidInputError, match="leads out"):
        plans.apply(d, NOW, PlanSettings())
    assert stub.exists() and not list(elsewhere.iterdir())
