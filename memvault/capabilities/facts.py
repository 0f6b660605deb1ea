"""Reading facts on the SDK facade (valid now, as of a time, with history; the contested
ones): ``MemVault`` inherits these."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from memvault.clock import ensure_utc
from memvault.errors import InvalidInputError
from memvault.kg.model import Fact, fact_order
from memvault.kg.store import FactQuery, Store

if TYPE_CHECKING:
    from memvault.recall import Recaller


class FactMethods:
    store: Store
    recaller: Recaller

    def ns(self, namespace: str | None) -> str:
        raise NotImplementedError

    def now(self, now: datetime | None = None) -> datetime:
        raise NotImplementedError

    def facts(
        self,
        *,
        namespace: str | None = None,
        subject: str | None = None,
        predicate: str | None = None,
        as_of: datetime | None = None,
        include_history: bool = False,
        limit: int = 1000,
    ) -> list[Fact]:
        """Facts, filtered. By default those valid now; ``as_of`` those valid then;
        ``include_history`` every fact ever stored, superseded and retired ones too."""
        ns = self.ns(namespace)
        for name, value in (("subject", subject), ("predicate", predicate)):
            if value is not None and not value.strip():
                raise InvalidInputError(
                    "is empty (only whitespace)", field=name, hint="name one, or leave it out"
                )
        subject_ids = None
        if subject is not None:
            subject_ids = [e.id for e in self.store.find_entities(ns, [subject])]
        from memvault.kg.model import normalize_predicate

        query = FactQuery(
            subject_ids=subject_ids,
            predicate=normalize_predicate(predicate) if predicate else None,
            # an as-of read answers what was believed then: facts retired since count
            include_expired=include_history or as_of is not None,
            limit=100_000,
        )
        found = self.store.list_facts(ns, query)
        if include_history:
            return found[:limit]
        if as_of is not None:
            at = ensure_utc(as_of, "as_of")
            believed: dict[tuple[str, str, str], Fact] = {}
            for f in sorted(found, key=lambda f: (f.expired_at is not None, *fact_order(f))):
                if f.believed_at(at):  # exact duplicates a dream merged since: listed once
                    believed.setdefault(f.key(), f)
            return list(believed.values())[:limit]
        now = self.now()
        return [f for f in found if f.is_valid_at(now)][:limit]

    def contested(
        self, *, namespace: str | None = None, as_of: datetime | None = None
    ) -> dict[str, Fact]:
        """Between dreams two values of a single-valued predicate can both be valid: each
        older one (id) → the newer value contesting it, provisional until the dream's
        verdict. Recall ranks the newer first."""
        from memvault.recall.currency import contested

        ns = self.ns(namespace)
        at = ensure_utc(as_of, "as_of") if as_of else self.now()
        live = self.store.list_facts(ns, FactQuery(limit=100_000))
        return contested(live, at, self.recaller.single_valued)
