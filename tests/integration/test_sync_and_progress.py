"""Sync retires what was deleted at the source (31.5), and imports report progress (34.5)."""

from __future__ import annotations

from pathlib import Path

from memvault import FixedClock, MemVault
from memvault.embed import HashingEmbedder
from tests.integration.test_interop_files import NOW, claude_mem_db, open_vault, valid_dir


def test_sync_retires_an_imported_memory_whose_file_was_deleted_and_undo_restores_it(
    tmp_path: Path,
) -> None:
    """31.5: a memory brought in by `import memory-dir` (not by the sync) is retired, not
    erased, when its file is deleted at the source; the run report lists the file; undo
    brings it back."""
    source = valid_dir(tmp_path)
    with MemVault.open(tmp_path / "v.db", embedder=HashingEmbedder(), clock=FixedClock(NOW)) as v:
        assert v.import_memory_dir(source)["imported"] == 3
    (source / "project_billing-on-postgres.md").unlink()
    sync = {"memory_dirs": {"default": [str(source / ".." / source.name)]}}  # another spelling
    with MemVault.open(
        tmp_path / "v.db", embedder=HashingEmbedder(), clock=FixedClock(NOW), sync=sync
    ) as vault:
        run = vault.dream(apply=True, force=True)
        files = run.report["stages"]["files"]
        assert (files["new"], files["changed"], files["retired"]) == (0, 0, 1)
        assert files["retired_files"] == [str(source.resolve() / "project_billing-on-postgres.md")]
        kept = [e for e in vault.episodes(limit=10) if "Postgres" in e.content]
        assert len(kept) == 1 and kept[0].expired_at is not None  # retired, still there
        assert all("Postgres" not in h.text for h in vault.recall("billing Postgres", k=5))
        vault.undo_dream(run.run_id or "")
        assert vault.get_episode(kept[0].id).expired_at is None


def test_imports_report_progress(tmp_path: Path) -> None:
    """34.5: a claude-mem import reports what it read after each committed batch; a dump
    whose vectors cannot be reused (another embedder) reports the vectors it computes."""
    import io

    from memvault.embed import FakeEmbedder

    db = claude_mem_db(tmp_path)
    seen: list[int] = []
    with open_vault(tmp_path / "v.db") as vault:
        done = vault.import_claude_mem(db, on_progress=seen.append)
        assert seen and seen[-1] == done["read"] == 4
        dump = io.StringIO()
        vault.export(dump)
    steps: list[tuple[int, int]] = []
    with MemVault.open(tmp_path / "other.db", embedder=FakeEmbedder(dim=384)) as other:
        dump.seek(0)
        summary = other.import_(dump, on_progress=lambda n, total: steps.append((n, total)))
        assert summary.reembedded > 0 and steps[-1] == (summary.reembedded, summary.reembedded)
