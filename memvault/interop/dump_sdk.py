"""The logical dump and re-embedding on the SDK facade: ``MemVault`` inherits these."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any

from memvault.capabilities.vectors import record
from memvault.config import Settings
from memvault.container import Container
from memvault.errors import InvalidInputError
from memvault.ingest.reembed import ReembedReport, reembed
from memvault.interop.dump import DumpSummary, export_namespace, import_namespace
from memvault.kg.store import Store


class DumpMethods:
    c: Container
    settings: Settings
    store: Store
    _embedders: dict[str, dict[str, Any]]

    def ns(self, namespace: str | None) -> str:
        raise NotImplementedError

    def namespaces(self) -> list[str]:
        raise NotImplementedError

    def export(
        self, out: IO[str], *, namespace: str | None = None, with_vectors: bool = True
    ) -> DumpSummary:
        return export_namespace(
            self.store,
            self.ns(namespace),
            out,
            embedder_name=self.c.embedder.name,
            with_vectors=with_vectors,
        )

    def reembed(
        self,
        *,
        namespace: str | None = None,
        apply: bool = False,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> ReembedReport:
        """Recompute the namespace's vectors with the configured embedder (dry run unless
        ``apply``): memvault.ingest.reembed."""
        if self.ns(namespace) not in self.namespaces():
            raise InvalidInputError(
                f"no namespace {self.ns(namespace)!r} in this vault",
                field="namespace",
                hint=f"namespaces: {', '.join(self.namespaces()) or 'none yet'}",
            )
        done = reembed(
            self.store,
            self.c.embedder,
            self.ns(namespace),
            apply=apply,
            on_progress=on_progress,
            chunk_chars=self.settings.chunk_chars,
        )
        if apply:  # the namespace's vectors are now the configured model's
            record(self.store, self.ns(namespace), self.c.embedder.name, self.c.embedder.dim)
            self._embedders.pop(self.ns(namespace), None)
        return done

    def import_(
        self,
        source: IO[str],
        *,
        namespace: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> DumpSummary:
        return import_namespace(
            self.store,
            source,
            embedder=self.c.embedder,
            namespace=self.ns(namespace) if namespace else None,
            chunk_chars=self.settings.chunk_chars,
            on_progress=on_progress,
        )
