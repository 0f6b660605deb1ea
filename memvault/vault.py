"""``MemVault``: the SDK facade. It composes one object per capability and keeps a flat name
for each of their methods, so both spellings work and mean the same call:

from memvault import MemVault
vault = MemVault.open()                      # ~/.memvault/memvault.db, offline
vault.write("I moved to Lisbon", speaker="Ana", namespace="ana")
for hit in vault.recall("where does Ana live?", namespace="ana"):
    print(hit.score, hit.text, hit.explanation.text())
vault.persona.attitudes(namespace="ana")     # the same as vault.attitudes(namespace="ana")

The capabilities: ``memories`` (write, recall, read, feedback), ``knowledge`` (facts, the
graph, entity types), ``forgetting``, ``vectors``, ``background`` (dreams, tiers, janitor,
lint), ``review`` (the review queue, the inbox), ``digests`` (folds, the primer),
``persona``, ``profiling`` (verdicts, gaps, profile, diary, prefetch) and ``interop``. The
registry (:mod:`memvault.capabilities.registry`) names each operation's capability.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memvault.background import Background, Review
from memvault.bootstrap import Container, bootstrap, load_settings
from memvault.capabilities.forgetting import Forgetter
from memvault.capabilities.knowledge import Knowledge
from memvault.capabilities.vectors import Vectors
from memvault.clock import ensure_utc
from memvault.container import alias
from memvault.digests import Digests
from memvault.errors import InvalidInputError
from memvault.feedback import Feedback as FeedbackService
from memvault.ingest.pipeline import Writer
from memvault.interop.sdk import Interop
from memvault.kg.model import NAMESPACE_PATTERN, Episode
from memvault.kg.store import Doc
from memvault.memories import Feedback, Memories
from memvault.persona.sdk import Persona
from memvault.profile.sdk import Profiling
from memvault.recall import Recaller

if TYPE_CHECKING:
    from memvault.dream.runner import Dreamer

__all__ = ["Feedback", "MemVault"]
_NAMESPACE = re.compile(NAMESPACE_PATTERN)


class MemVault:
    def __init__(self, container: Container):
        self.c = container
        self.settings = container.settings
        self.store = container.store
        # the parts the capabilities share
        self.writer = Writer(
            store=container.store,
            embedder=container.embedder,
            llm=container.llm,
            max_chars=self.settings.max_content_chars,
            chunk_chars=self.settings.chunk_chars,
            hold_below=self.settings.hold_facts_below,
            due_days=self.settings.dream.review.due_days,
            on_episodes=self._persona_docs if self.settings.persona.on_write else None,
            rules=container.rules,
        )
        configured = set(self.settings.dream.consolidate.single_valued_predicates)
        self.feedbacks = FeedbackService(container.store)
        self.recaller = Recaller(
            store=container.store,
            embedder=container.embedder,
            settings=self.settings.recall,
            single_valued=lambda p: p in configured or container.ontology.is_(p, "single_valued"),
            opposites=container.ontology.opposites,
        )
        # the capabilities
        self.memories = Memories(self)
        self.knowledge = Knowledge(self)
        self.forgetting = Forgetter(self)
        self.vectors = Vectors(self)
        self.background = Background(self)
        self.review = Review(self, self.background)
        self.digests = Digests(self)
        self.persona = Persona(self)
        self.profiling = Profiling(self)
        self.interop = Interop(self)

    @classmethod
    def open(cls, path: str | Path | None = None, **overrides: Any) -> MemVault:
        """Open (or create) a vault. ``path`` is the SQLite file; ``overrides`` go to
        :func:`bootstrap` (``embedder=``, ``llm=``, ``clock=``, ``store=``) or Settings."""
        parts = {
            k: overrides.pop(k)
            for k in ("store", "embedder", "llm", "clock", "coord", "reasoning_llm")
            if k in overrides
        }
        settings = overrides.pop("settings", None) or load_settings(**overrides)
        if path is not None:
            settings = settings.model_copy(update={"db_path": Path(path)})
        return cls(bootstrap(settings, **parts))

    def close(self) -> None:
        self.vectors.stop_catch_up()  # between batches: what it committed stays, the rest waits
        self.c.close()

    def __enter__(self) -> MemVault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- helpers --------------------------------------------------------------------------
    def ns(self, namespace: str | None) -> str:
        if namespace is not None and not namespace.strip():
            raise InvalidInputError(
                "is empty",
                field="namespace",
                hint=f"name one, or leave the option out for {self.settings.default_namespace!r}",
            )
        name = namespace or self.settings.default_namespace
        if not _NAMESPACE.fullmatch(name):  # fullmatch: '$' alone lets a trailing newline in
            raise InvalidInputError(
                f"{name!r} is not a valid namespace",
                field="namespace",
                hint="1-128 characters: letters, digits and _ . : @ -, starting alphanumeric",
            )
        return name

    def now(self, now: datetime | None = None) -> datetime:
        return ensure_utc(now, "now") if now else self.c.clock.now()

    @property
    def dreamer(self) -> Dreamer:
        """The dream's runner (``vault.background.dreamer``)."""
        return self.background.dreamer

    def _persona_docs(self, namespace: str, episodes: list[Episode]) -> list[Doc]:
        """The persona rules over episodes being written (``persona.on_write``)."""
        return self.persona.service.docs_for(namespace, episodes)

    # -- the flat names: each is the capability's method (registry: an operation's "on") -----
    # memories
    write = alias("memories", Memories.write)
    write_many = alias("memories", Memories.write_many)
    import_chat_export = alias("memories", Memories.import_chat_export)
    add_fact = alias("memories", Memories.add_fact)
    add_facts = alias("memories", Memories.add_facts)
    recall = alias("memories", Memories.recall)
    episodes = alias("memories", Memories.episodes)
    get_episode = alias("memories", Memories.get_episode)
    stats = alias("memories", Memories.stats)
    namespaces = alias("memories", Memories.namespaces)
    record_access = alias("memories", Memories.record_access)
    reinforce = alias("memories", Memories.reinforce)
    feedback = alias("memories", Memories.feedback)
    judge = alias("memories", Memories.judge)
    # knowledge
    facts = alias("knowledge", Knowledge.facts)
    contested = alias("knowledge", Knowledge.contested)
    graph = alias("knowledge", Knowledge.graph)
    entity_types = alias("knowledge", Knowledge.entity_types)
    define_entity_type = alias("knowledge", Knowledge.define_entity_type)
    remove_entity_type = alias("knowledge", Knowledge.remove_entity_type)
    # forgetting
    forget = alias("forgetting", Forgetter.forget)
    forget_subject = alias("forgetting", Forgetter.forget_subject)
    correct = alias("forgetting", Forgetter.correct)
    # vectors
    embedder_of = alias("vectors", Vectors.embedder_of)
    vectors_pending = alias("vectors", Vectors.vectors_pending)
    catch_up = alias("vectors", Vectors.catch_up)
    wait_for_vectors = alias("vectors", Vectors.wait_for_vectors)
    reembed = alias("vectors", Vectors.reembed)
    # background
    dream = alias("background", Background.dream)
    cross_namespace_duplicates = alias("background", Background.cross_namespace_duplicates)
    dream_report = alias("background", Background.dream_report)
    dream_runs = alias("background", Background.dream_runs)
    resume_dreams = alias("background", Background.resume_dreams)
    undo_dream = alias("background", Background.undo_dream)
    tiers = alias("background", Background.tiers)
    janitor = alias("background", Background.janitor)
    lint = alias("background", Background.lint)
    # review
    review_items = alias("review", Review.review_items)
    approve = alias("review", Review.approve)
    reject = alias("review", Review.reject)
    decide_reviews = alias("review", Review.decide_reviews)
    review_policy = alias("review", Review.review_policy)
    reset_review_policy = alias("review", Review.reset_review_policy)
    requeue_overdue = alias("review", Review.requeue_overdue)
    inbox = alias("review", Review.inbox)
    mark_inbox = alias("review", Review.mark_inbox)
    # digests
    fold = alias("digests", Digests.fold)
    undo_fold = alias("digests", Digests.undo_fold)
    fold_economics = alias("digests", Digests.fold_economics)
    primer = alias("digests", Digests.primer)
    # persona
    attitudes = alias("persona", Persona.attitudes)
    upsert_attitude = alias("persona", Persona.upsert_attitude)
    skills = alias("persona", Persona.skills)
    record_skill_use = alias("persona", Persona.record_skill_use)
    # profiling
    verdict = alias("profiling", Profiling.verdict)
    profile = alias("profiling", Profiling.profile)
    diary = alias("profiling", Profiling.diary)
    write_diary = alias("profiling", Profiling.write_diary)
    prefetch = alias("profiling", Profiling.prefetch)
    gaps = alias("profiling", Profiling.gaps)
    # interop
    export = alias("interop", Interop.export)
    import_ = alias("interop", Interop.import_)
    import_memory_dir = alias("interop", Interop.import_memory_dir)
    export_memory_dir = alias("interop", Interop.export_memory_dir)
    import_claude_mem = alias("interop", Interop.import_claude_mem)
