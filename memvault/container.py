"""The parts one vault runs on (settings, store, coordination, embedder, LLMs, clock), as one
value the capabilities receive. It sits on the ports floor: it names the ports and knows no
implementation; :mod:`memvault.bootstrap` (the composition root, on the surfaces floor)
chooses the parts and hands over how to build the offline rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

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
