"""The interop capability of the SDK facade (``vault.interop``): the logical dump out and in,
MEMORY.md directories in and out, and the read-only claude-mem import. docs/interop.md."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

from memvault.container import Capability, Facade
from memvault.errors import InvalidBatchError, InvalidInputError, Problem
from memvault.interop import claude_mem, memory_dir
from memvault.interop.dump import DumpSummary, export_namespace, import_namespace
from memvault.interop.paths import inside
from memvault.kg.model import Episode
from memvault.kg.store import Batch, Doc

if TYPE_CHECKING:
    from memvault.ingest.pipeline import Writer, WriteResult

IMPORT_STATE = "import_state"  # a document per source: what was imported last
CHUNK = 500


class InteropFacade(Facade, Protocol):
    """What interop reads of the facade beyond the container: its writes, whole."""

    writer: Writer

    def write_many(self, items: Sequence[Any], *, namespace: str | None = None) -> WriteResult: ...

    def add_facts(self, items: Sequence[Any], *, namespace: str | None = None) -> Any: ...


class Interop(Capability[InteropFacade]):
    # -- the logical dump (memvault.interop.dump) -------------------------------------------------
    def export(
        self, out: IO[str], *, namespace: str | None = None, with_vectors: bool = True
    ) -> DumpSummary:
        """Every record of the namespace as JSON lines (docs/interop.md), vectors included
        unless ``with_vectors`` is false."""
        return export_namespace(
            self.store,
            self.ns(namespace),
            out,
            embedder_name=self.c.embedder.name,
            with_vectors=with_vectors,
        )

    def import_(
        self,
        source: IO[str],
        *,
        namespace: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> DumpSummary:
        """Read a dump :meth:`export` wrote (into ``namespace``, or the one it names); its
        vectors are kept when they are the configured model's, computed again otherwise."""
        return import_namespace(
            self.store,
            source,
            embedder=self.c.embedder,
            namespace=self.ns(namespace) if namespace else None,
            chunk_chars=self.settings.chunk_chars,
            on_progress=on_progress,
        )

    # -- MEMORY.md directories ----------------------------------------------------------------
    def import_memory_dir(
        self, directory: str | Path, *, namespace: str | None = None
    ) -> dict[str, Any]:
        """Every memory file of a MEMORY.md directory as a typed memory, all or nothing:
        any problem (listed by path and line) and nothing is written. A second import adds
        only new files; a changed file is reported, not overwritten."""
        ns = self.ns(namespace)
        reading = memory_dir.read_dir(Path(directory))
        if reading.problems:
            raise InvalidBatchError(reading.problems, what=str(directory))
        stored = {
            e.external_id: e
            for e in self._all_episodes(ns)
            if e.external_id and e.external_id.startswith("memory-dir:")
        }
        items, changed = [], []
        for m in reading.memories:
            before = stored.get(f"memory-dir:{m.name}")
            if before is None:
                item = memory_dir.episode_item(m)
                # where it came from: a sync of this directory retires it when it is deleted
                item["metadata"]["memory_dir"]["dir"] = str(Path(directory).expanduser().resolve())
                items.append(item)
            elif (before.metadata.get("memory_dir") or {}).get("body") != m.body:
                changed.append(m.file)
        result = self.vault.write_many(items, namespace=ns) if items else None
        known = {m.name for m in reading.memories}
        links = [
            {
                "subject": m.name,
                "predicate": "links_to",
                "object": link,
                "object_is_entity": True,
                "subject_type": "concept",
            }
            for m in reading.memories
            for link in m.links
            if link in known
        ]
        if links:
            self.vault.add_facts(links, namespace=ns)
        return {
            "namespace": ns,
            "files": len(reading.memories),
            "imported": result.created if result else 0,
            "forgotten": result.forgotten if result else 0,  # erased before: not written again
            "unchanged": len(reading.memories) - len(items) - len(changed),
            "changed_not_updated": changed,
            "links": len(links),
            "unresolved_links": reading.unresolved_links,
            "relative_dates": reading.relative_dates,
        }

    def export_memory_dir(
        self, directory: str | Path, *, namespace: str | None = None
    ) -> dict[str, Any]:
        """The namespace's typed memories (user, feedback, project, reference) as a MEMORY.md
        directory: one file per memory and the index. Imported files come back as they were;
        refuses to write over files it did not write (an existing MEMORY.md it would change)."""
        ns = self.ns(namespace)
        target = Path(directory)
        if target.exists() and not target.is_dir():
            raise InvalidInputError(f"{target} is not a directory", field="dir")
        episodes = memory_dir.exportable(self._all_episodes(ns))
        used: set[str] = set()
        files: dict[str, str] = {}
        lines = []

        def order(e: Episode) -> tuple[int, str]:  # the index's order, new memories after
            kept = e.metadata.get("memory_dir") or {}
            return (int(kept.get("position", 1 << 30)), kept.get("file") or e.id)

        for e in sorted(episodes, key=order):
            name, text, line = memory_dir.render(e, used)
            files[name] = text
            lines.append(line)
        paths = {n: inside(target, n) for n in [*files, memory_dir.INDEX]}
        clashes = [
            n
            for n in files
            if paths[n].exists() and paths[n].read_text(encoding="utf-8") != files[n]
        ]
        if clashes:
            raise InvalidBatchError(
                [
                    Problem(n, "exists with other content; export to an empty directory")
                    for n in clashes
                ],
                what=f"the export to {target}",
            )
        target.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            paths[name].write_text(text, encoding="utf-8")
        paths[memory_dir.INDEX].write_text("\n".join(lines) + "\n", encoding="utf-8")
        return {"namespace": ns, "dir": str(target), "files": len(files)}

    # -- claude-mem ---------------------------------------------------------------------------
    def import_claude_mem(
        self,
        path: str | Path,
        *,
        namespace: str | None = None,
        project: str | None = None,
        on_progress: Callable[[int], None] | None = None,
    ) -> dict[str, Any]:
        """Observations of a claude-mem database, read-only, as typed episodes; a second
        import reads only what is new (a watermark per source and project).
        ``on_progress(read)``: observations read so far, after each committed batch."""
        ns = self.ns(namespace)
        source = Path(path)
        con = claude_mem.connect(source)
        try:
            cols = claude_mem.columns(con)
            key = _state_key(source, project)
            found = self.store.get_docs(ns, IMPORT_STATE, [key])
            after = int(found[0].body.get("last_id", 0)) if found else 0
            counts = {
                "read": 0,
                "imported": 0,
                "duplicates": 0,
                "forgotten": 0,  # erased by a forget: not written again
                "skipped_empty": 0,
                "skipped_bad_time": 0,
                "skipped_invalid": 0,
            }
            problems: list[dict[str, Any]] = []
            last = after
            batch: list[Mapping[str, Any]] = []

            def flush() -> None:
                # one bad row never sinks the import (nor, retried, every later one): rows the
                # write path would refuse are skipped and listed, the rest written
                labels = [f"observation {it['metadata']['claude_mem']['id']}" for it in batch]
                bad = self.vault.writer.check(ns, batch, labels, now=self.now())
                refused = {p.where for p in bad}
                problems.extend({"where": p.where, "message": p.message} for p in bad)
                counts["skipped_invalid"] += len(refused)
                good = [it for it, label in zip(batch, labels, strict=True) if label not in refused]
                if good:
                    result = self.vault.write_many(good, namespace=ns)
                    counts["imported"] += result.created
                    counts["duplicates"] += result.duplicates
                    counts["forgotten"] += result.forgotten
                batch.clear()
                if on_progress is not None:
                    on_progress(counts["read"])
                self.store.apply(
                    Batch(
                        namespace=ns,
                        docs=[
                            Doc(
                                IMPORT_STATE,
                                key,
                                {"source": str(source), "project": project, "last_id": last},
                            )
                        ],
                    )
                )

            for row in claude_mem.observations(con, cols, after, project):
                counts["read"] += 1
                last = max(last, int(row["id"]))
                it = claude_mem.item(row)
                if isinstance(it, str):
                    counts[it] += 1
                    if it == "skipped_bad_time" and len(problems) < 100:
                        problems.append(
                            {"where": f"observation {row['id']}", "message": "no readable time"}
                        )
                    continue
                batch.append(it)
                if len(batch) >= CHUNK:
                    flush()
            flush()
        finally:
            con.close()
        return {
            "namespace": ns,
            "source": str(source),
            "project": project,
            "after_id": after,
            "last_id": last,
            **counts,
            "problems": problems[:100],
        }

    def _all_episodes(self, ns: str) -> list[Episode]:
        return [r for r in self.store.iter_records(ns) if isinstance(r, Episode)]


def _state_key(source: Path, project: str | None) -> str:
    digest = hashlib.blake2b(str(source.resolve()).encode(), digest_size=8).hexdigest()
    return f"claude-mem:{digest}:{project or '*'}"
