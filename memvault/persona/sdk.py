"""The persona capability of the SDK facade (``vault.persona``): attitudes and skills, each
method delegating to :class:`memvault.persona.service.PersonaService` (``.service``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memvault.clock import ensure_utc
from memvault.container import Capability, Facade
from memvault.kg.persona import Category
from memvault.persona.service import PersonaService


class Persona(Capability[Facade]):
    @property
    def service(self) -> PersonaService:
        return PersonaService(self.c.store, self.settings.persona, workers=self.c.rule_workers)

    def attitudes(
        self,
        *,
        namespace: str | None = None,
        category: str | Category | None = None,
        as_of: datetime | None = None,
        history: bool = False,
    ) -> list[dict[str, Any]]:
        """Current attitudes (confidence decayed to ``as_of`` or now, at or above
        ``persona.current_floor``); with ``history`` every version, each with its status
        (current, faded, superseded)."""
        at = ensure_utc(as_of, "as_of") if as_of else self.now()
        return self.service.attitudes(
            self.ns(namespace), at=at, category_=category, history=history
        )

    def upsert_attitude(
        self,
        category: str | Category,
        statement: str,
        *,
        namespace: str | None = None,
        topic: str | None = None,
        context: str | None = None,
        polarity: int = 1,
        confidence: float | None = None,
        evidence: str | None = None,
        now: datetime | None = None,
    ) -> dict[str, Any]:
        """Restating a current attitude corroborates it; changing one starts a new version
        (the old one is kept, superseded); ``evidence``: the episode it comes from."""
        return self.service.upsert_attitude(
            self.ns(namespace),
            category,
            statement,
            at=self.now(now),
            topic=topic,
            context=context,
            polarity=polarity,
            confidence=confidence,
            episode_id=evidence,
        )

    def skills(
        self,
        *,
        namespace: str | None = None,
        as_of: datetime | None = None,
        min_level: str | None = None,
    ) -> list[dict[str, Any]]:
        """Each skill with its level (L1 exposure, L2 competent, L3 generative) and why."""
        at = ensure_utc(as_of, "as_of") if as_of else self.now()
        return self.service.skills(self.ns(namespace), at=at, min_level=min_level)

    def record_skill_use(
        self,
        skill: str,
        *,
        kind: str = "do",
        evidence: str | None = None,
        namespace: str | None = None,
        now: datetime | None = None,
    ) -> dict[str, Any]:
        """One use of a skill (read < do < teach / build), with the episode it shows in."""
        return self.service.record_skill_use(
            self.ns(namespace), skill, kind=kind, at=self.now(now), episode_id=evidence
        )
