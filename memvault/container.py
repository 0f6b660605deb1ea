"""The parts one vault runs on (settings, store, coordination, embedder, LLMs, clock), as one
value the capabilities receive. It sits on the ports floor: it names the ports and knows no
implementation; :mod:`memvault.bootstrap` (the composition root, on the surfaces floor)
chooses the parts and hands over how to build the offline rules.

Also here, because every floor above reads them: :class:`Capability`, the base of the
objects the SDK facade composes (``vault.persona``, ``vault.review``, ...), the
:class:`Facade` protocol they read the vault through, and :func:`alias`, the typed flat
name the facade keeps for each of their methods (``vault.attitudes`` is
``vault.persona.attitudes``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar

from memvault.clock import Clock
from memvault.config import Settings
from memvault.coord import Coordination
from memvault.embed import Embedder
from memvault.kg.ontology import Ontology, load_ontology
from memvault.kg.store import Store
from memvault.llm import LLM


@dataclass
class Container:
    settings: Settings
    store: Store
    embedder: Embedder
    llm: LLM
    clock: Clock
    coord: Coordination
    make_rules: Callable[[], LLM]
    reasoning_llm: LLM | None = None
    rule_workers: int = 1  # processes the write path's rules may use (setting rule_workers)
    # built from the settings alone (no store, embedder or coordination handed in): another
    # process can build the same parts (setting catch_up_process)
    from_settings: bool = False
    _ontology: Ontology | None = field(default=None, repr=False)
    _rules: LLM | None = field(default=None, repr=False)

    @property
    def rules(self) -> LLM:
        """The offline rules alone, whatever model is configured (``write --rules-only``,
        setting ``extract_with_rules``); built once, on first use."""
        if self._rules is None:
            self._rules = self.make_rules()
        return self._rules

    @property
    def ontology(self) -> Ontology:
        """The shipped ontology extended by ``lint.ontology_paths``; read once, on first use
        (a broken file fails here, with its line)."""
        if self._ontology is None:
            self._ontology = load_ontology(self.settings.lint.ontology_paths)
        return self._ontology

    def close(self) -> None:
        self.coord.close()
        self.store.close()


class Facade(Protocol):
    """What every capability reads of the facade that composes it: the container, and the
    facade's rules for a namespace's name and for the time."""

    c: Container

    def ns(self, namespace: str | None) -> str: ...

    def now(self, now: datetime | None = None) -> datetime: ...


F = TypeVar("F", bound=Facade)


class Capability(Generic[F]):
    """One capability of a vault, composed by the SDK facade. ``F`` is what it needs of the
    facade beyond :class:`Facade` (another capability's method, the writer): declared as a
    protocol beside it, so that a capability imports nothing above its floor."""

    def __init__(self, vault: F) -> None:
        self.vault = vault

    @property
    def c(self) -> Container:
        return self.vault.c

    @property
    def settings(self) -> Settings:
        return self.vault.c.settings

    @property
    def store(self) -> Store:
        return self.vault.c.store

    def ns(self, namespace: str | None) -> str:
        return self.vault.ns(namespace)

    def now(self, now: datetime | None = None) -> datetime:
        return self.vault.now(now)


P = ParamSpec("P")
R = TypeVar("R")


def alias(
    capability: str, method: Callable[Concatenate[Any, P], R]
) -> Callable[Concatenate[Any, P], R]:
    """A flat name on the facade for a capability's method, typed as the method itself:
    ``attitudes = alias("persona", Persona.attitudes)`` makes ``vault.attitudes(...)`` call
    ``vault.persona.attitudes(...)``: the same signature, docstring and type checks."""
    name = method.__name__

    def call(vault: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return getattr(getattr(vault, capability), name)(*args, **kwargs)

    call.capability = capability  # type: ignore[attr-defined]  # the registry's test reads it
    return functools.wraps(method)(call)
