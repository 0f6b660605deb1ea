"""The digests capability of the SDK facade (``vault.digests``): fold what was written into
each memory type's digest, undo a fold, the folds' economics, and the primer a session starts
with (docs/folds.md)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from memvault.container import Capability, Facade

if TYPE_CHECKING:
    from memvault.folds import FoldReport
    from memvault.kg.model import Fact
    from memvault.primer import Primer

FACT_LINES = 25  # the primer's facts: the newest this many valid now


class DigestsFacade(Facade, Protocol):
    """What the digests read of the facade beyond the container: the facts valid now and
    those a newer value contests (the knowledge capability)."""

    def facts(self, *, namespace: str | None = None, limit: int = 1000) -> list[Fact]: ...

    def contested(self, *, namespace: str | None = None) -> dict[str, Fact]: ...


class Digests(Capability[DigestsFacade]):
    def fold(
        self,
        *,
        namespace: str | None = None,
        apply: bool = False,
        rebuild: bool = False,
        now: datetime | None = None,
    ) -> FoldReport:
        """Fold the episodes written since the last fold into each memory type's digest
        (without ``apply``: how many each type would read). ``rebuild`` starts every digest
        over from all episodes."""
        from memvault.folds import Folder

        folder = Folder(self.store, self.c.llm, self.settings.fold)
        return folder.fold(self.ns(namespace), now=self.now(now), apply=apply, rebuild=rebuild)

    def undo_fold(
        self, *, namespace: str | None = None, apply: bool = False
    ) -> dict[str, dict[str, Any]]:
        """Undo each type's last applied fold run (without ``apply``: what would be
        restored); the episodes it read are folded again by the next run."""
        from memvault.folds import Folder

        folder = Folder(self.store, self.c.llm, self.settings.fold)
        return folder.undo(self.ns(namespace), apply=apply)

    def fold_economics(self, *, namespace: str | None = None) -> list[dict[str, Any]]:
        """Per project ("" the namespace's own cells): observations folded, their raw
        tokens, the digests' tokens and the ratio (seed 001's table)."""
        from memvault.folds import economics

        return economics(self.store, self.ns(namespace))

    def primer(
        self,
        *,
        namespace: str | None = None,
        budget_tokens: int | None = None,
        project: str | None = None,
    ) -> Primer:
        """The block to load at session start: the type digests and what waits for a human,
        within ``budget_tokens`` (default ``fold.primer_tokens``), with its economics.
        ``project``: that project's digests first, the namespace's own for the types it has
        none of."""
        from memvault import primer
        from memvault.errors import InvalidInputError

        budget = self.settings.fold.primer_tokens if budget_tokens is None else budget_tokens
        if budget < primer.MIN_TOKENS:
            raise InvalidInputError(
                f"a primer budget of {budget} tokens cannot hold a digest",
                field="budget",
                hint=f"give at least {primer.MIN_TOKENS} tokens",
            )
        ns = self.ns(namespace)
        return primer.build(
            self.store,
            ns,
            budget_tokens=budget,
            persona=self._persona_lines(ns),
            facts=self._fact_lines(ns),
            project=project.strip() if project and project.strip() else None,
        )

    def _fact_lines(self, ns: str) -> list[str]:
        """The facts valid now, newest first, one a line with the day each became true; an
        older value a newer one contests (no dream has judged them yet) is left out, so the
        session does not start from the old situation."""
        contested = self.vault.contested(namespace=ns)
        valid = [f for f in self.vault.facts(namespace=ns, limit=5000) if f.id not in contested]
        valid.sort(key=lambda f: (f.valid_at, f.confidence), reverse=True)
        return [f"- {f.statement} (since {f.valid_at:%Y-%m-%d})" for f in valid[:FACT_LINES]]

    def _persona_lines(self, ns: str) -> list[str]:
        """Current attitudes (most confident first) and skills at L2 or above, one a line."""
        from memvault.persona.service import PersonaService

        service = PersonaService(self.store, self.settings.persona)
        at = self.now()
        views = sorted(service.current(ns, at), key=lambda v: -v.confidence_now)[:12]
        lines = [f"- {v.attitude.statement} [{v.attitude.category.value}]" for v in views]
        skills = service.skills(ns, at=at, min_level="L2")[:8]
        if skills:
            lines.append("- skills: " + ", ".join(f"{s['name']} {s['level']}" for s in skills))
        return lines
