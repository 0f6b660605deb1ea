"""``MemVault``: the SDK facade over the write path, recall, feedback and the dump.

from memvault import MemVault
vault = MemVault.open()                      # ~/.memvault/memvault.db, offline
vault.write("I moved to Lisbon", speaker="Ana", namespace="ana")
for hit in vault.recall("where does Ana live?", namespace="ana"):
    print(hit.score, hit.text, hit.explanation.text())
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from memvault.background import Background
from memvault.bootstrap import Container, bootstrap, load_settings
from memvault.capabilities.entity_types import EntityTypeMethods
from memvault.capabilities.facts import FactMethods
from memvault.capabilities.sdk import ForgetMethods
from memvault.capabilities.vectors import VectorMethods
from memvault.clock import ensure_utc
from memvault.errors import InvalidInputError, NotFoundError, UnusableStoreError
from memvault.feedback import Feedback as FeedbackService
from memvault.ingest.inputs import EpisodeIn, FactIn
from memvault.ingest.pipeline import Writer, WriteResult
from memvault.interop.dump_sdk import DumpMethods
from memvault.interop.sdk import InteropMethods
from memvault.kg.model import NAMESPACE_PATTERN, Episode, Fact, new_id
from memvault.kg.store import Batch, Doc
from memvault.persona.sdk import PersonaMethods
from memvault.profile import recall_log
from memvault.profile.sdk import ProfileMethods
from memvault.recall import Recall, Recaller
from memvault.recall.results import Hit

if TYPE_CHECKING:
    from memvault.dream.runner import Dreamer

Feedback = Literal["up", "down", "correct", "incorrect"]
_NAMESPACE = re.compile(NAMESPACE_PATTERN)
log = logging.getLogger(__name__)


class MemVault(
    Background,
    PersonaMethods,
    InteropMethods,
    ProfileMethods,
    ForgetMethods,
    VectorMethods,
    DumpMethods,
    FactMethods,
    EntityTypeMethods,
):
    def __init__(self, container: Container):
        self.c = container
        self._dreamer: Dreamer | None = None
        self._catchup = None
        self._embedders: dict[str, dict[str, Any]] = {}  # namespaces checked (vectors.py)
        self.settings = container.settings
        self.store = container.store
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
        )

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
        self._stop_catch_up()  # between batches: what it committed stays, the rest waits
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

    # -- writing --------------------------------------------------------------------------
    def write(
        self,
        content: str | bytes,
        *,
        namespace: str | None = None,
        now: datetime | None = None,
        rules_only: bool | None = None,
        **fields: Any,
    ) -> Episode:
        """Write one memory; returns the stored episode (the existing one if a duplicate).
        ``rules_only``: extract with the offline rules even when a model is configured
        (default: setting ``extract_with_rules``)."""
        if isinstance(content, bytes):
            from memvault.ingest.normalize import decode

            content = decode(content)
        ns = self.ns(namespace)
        self._check_embedder(ns, writing=True)
        defer = self.settings.defer_vectors == "always"
        result = self.writer.write_episodes(
            ns,
            [{"content": content, **fields}],
            now=self.now(now),
            defer_vectors=defer,
            rules_only=self.settings.extract_with_rules if rules_only is None else rules_only,
        )
        self._vectors_owed(ns, result.vectors_pending)
        self._captured(ns, result, now)
        return self.store.get_episodes(ns, result.episode_ids)[0]

    def write_many(
        self,
        items: Sequence[EpisodeIn | Mapping[str, Any]],
        *,
        namespace: str | None = None,
        now: datetime | None = None,
        labels: Sequence[str] | None = None,
        defer_vectors: bool | None = None,
        rules_only: bool | None = None,
    ) -> WriteResult:
        """Write a batch in one transaction: all of it, or (on any invalid item) none.
        ``defer_vectors``: return before the memories' meaning vectors exist (found by their
        words at once, by meaning after catch-up: :meth:`wait_for_vectors`); default: the
        ``defer_vectors`` setting says ``always``. ``rules_only``: as for :meth:`write`."""
        ns = self.ns(namespace)
        self._check_embedder(ns, writing=True)
        if defer_vectors is None:
            defer_vectors = self.settings.defer_vectors == "always"
        result = self.writer.write_episodes(
            ns,
            items,
            now=self.now(now),
            labels=labels,
            defer_vectors=defer_vectors,
            rules_only=self.settings.extract_with_rules if rules_only is None else rules_only,
        )
        self._vectors_owed(ns, result.vectors_pending)
        self._captured(ns, result, now)
        return result

    def _persona_docs(self, namespace: str, episodes: list[Episode]) -> list[Doc]:
        """The persona rules over episodes being written (``persona.on_write``)."""
        return self.persona.docs_for(namespace, episodes)

    def _captured(self, namespace: str, result: WriteResult, now: datetime | None) -> None:
        """After a write: the janitor on its ``onCapture`` schedule, once enough was written
        since its last run."""
        if self.settings.dream.hygiene.schedule == "onCapture":
            self.dreamer.capture(namespace, self.now(now))

    def add_fact(
        self,
        subject: str,
        predicate: str,
        object: str,
        *,
        namespace: str | None = None,
        now: datetime | None = None,
        **fields: Any,
    ) -> Fact:
        """Write a structured fact directly (``valid_at`` defaults to now)."""
        item = {"subject": subject, "predicate": predicate, "object": object, **fields}
        return self.add_facts([item], namespace=namespace, now=now)[0]

    def add_facts(
        self,
        items: Sequence[FactIn | Mapping[str, Any]],
        *,
        namespace: str | None = None,
        now: datetime | None = None,
    ) -> list[Fact]:
        return self.writer.write_facts(self.ns(namespace), items, now=self.now(now))

    # -- reading --------------------------------------------------------------------------
    def recall(
        self,
        query: str,
        *,
        namespace: str | None = None,
        k: int | None = None,
        now: datetime | None = None,
        as_of: datetime | None = None,
        persona: bool = False,
        session_id: str | None = None,
    ) -> Recall:
        """The ``k`` memories (episodes and facts) that matter most for ``query`` at ``now``
        (or as the world stood at ``as_of``). Reads only: record use with
        :meth:`record_access` / :meth:`reinforce`. ``persona``: after them, up to
        ``persona.recall_hits`` current attitudes the query touches (kind ``persona``).
        ``session_id``: the session asking; its prefetch cache is looked at first
        (:meth:`prefetch`)."""
        if not query or not query.strip():
            raise InvalidInputError("is empty", field="query", hint="ask something")
        k = self.settings.recall.k if k is None else k
        if not 1 <= k <= 1000:
            raise InvalidInputError(f"must be between 1 and 1000, got {k}", field="k")
        ns = self.ns(namespace)
        self._check_embedder(ns, writing=False)
        at = ensure_utc(as_of, "as_of") if as_of else None
        warm = None
        if session_id and at is None:
            from memvault.profile import prefetch

            warm = prefetch.lookup(
                self.store, ns, session_id, query.strip(), k, self.now(now), self.settings.prefetch
            )
        if warm is not None:
            note = f"predicted '{warm['query']}': {warm['why']} (warmed {warm['computed_at'][:19]})"
            hits = [Hit.model_validate(h) for h in warm["hits"][:k]]
            for h in hits:
                h.explanation.prefetched = note
            mark, pending = int(warm["watermark"]), self.vectors_pending(namespace=ns)
            docs = self.store.get_docs(ns, *_one(recall_log.hint_key(query)))
        else:  # one read of the candidates brings the namespace's state and the gap's hint
            done = self.recaller.recalled(
                ns,
                query.strip(),
                k=k,
                now=self.now(now),
                as_of=at,
                docs=[recall_log.hint_key(query)],
            )
            hits, mark, pending, docs = done.hits, done.view.mark, done.pending, done.docs
        if persona and self.settings.persona.recall_hits:
            from memvault.persona.recall import persona_hits

            views = self.persona.current(ns, at or self.now(now))
            hits += persona_hits(views, query, self.settings.persona.recall_hits)
        result = Recall(hits)
        result.prefetched = warm is not None
        result.vectors_pending = pending
        # the recall log (verdicts and gaps read it, ranking never); a namespace nothing was
        # written to is not created by asking it
        if self.settings.recall.log and mark > 0:
            result.recall_id = new_id()
            doc = recall_log.log_doc(
                result.recall_id,
                query.strip(),
                [h.id for h in hits],
                self.now(now),
                session_id,
                result.prefetched,
            )
            try:
                self.store.apply(Batch(namespace=ns, docs=[doc], quiet=True, durable=False))
            except UnusableStoreError as exc:  # a read-only vault still answers
                log.warning("recall not logged: %s", exc)
                result.recall_id = None
            else:
                result.hint = recall_log.hint_from(docs)
        return result

    def episodes(
        self,
        *,
        namespace: str | None = None,
        session_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Episode]:
        """Stored episodes in time order (then their position in the session), paged."""
        return self.store.list_episodes(
            self.ns(namespace), session_id=session_id, limit=limit, offset=offset
        )

    def get_episode(self, episode_id: str, *, namespace: str | None = None) -> Episode:
        ns = self.ns(namespace)
        found = self.store.get_episodes(ns, [episode_id])
        if not found:
            raise NotFoundError("episode", episode_id, ns)
        return found[0]

    def stats(self, *, namespace: str | None = None) -> dict[str, Any]:
        ns = self.ns(namespace)
        tiers: dict[str, int] = {}
        levels: dict[str, int] = {}
        for cell in self.store.tier_counts(ns):
            tiers[cell["tier"]] = tiers.get(cell["tier"], 0) + cell["episodes"]
            levels[cell["level"]] = levels.get(cell["level"], 0) + cell["episodes"]
        return {
            "namespace": ns,
            **self.store.counts(ns),
            "watermark": self.store.watermark(ns),
            "vectors_pending": self.vectors_pending(namespace=ns),
            "embedder": self.embedder_of(ns),
            "tiers": tiers,
            "digests": levels.get("digest", 0),
            "headlines": levels.get("headline", 0),
            "janitor": self.dreamer.janitor_snapshot(ns),
        }

    def namespaces(self) -> list[str]:
        return self.store.namespaces()

    # -- feedback (memvault.feedback) ----------------------------------------------------------
    def record_access(
        self, ids: Iterable[str], *, namespace: str | None = None, now: datetime | None = None
    ) -> int:
        """Count that these memories were used (fetched into a context)."""
        return len(self.judge(ids, "access", namespace=namespace, now=now))

    def reinforce(
        self, ids: Iterable[str], *, namespace: str | None = None, now: datetime | None = None
    ) -> int:
        """The user confirmed these memories were useful: they resist decay and stickiness."""
        return len(self.judge(ids, "reinforce", namespace=namespace, now=now))

    def feedback(
        self,
        record_id: str,
        signal: Feedback,
        *,
        namespace: str | None = None,
        now: datetime | None = None,
    ) -> Episode | Fact:
        """up / down move importance by 0.1; correct reinforces; incorrect retires a fact
        (vault time: ``expired_at``) or sets an episode's importance to 0."""
        if signal not in ("up", "down", "correct", "incorrect"):
            raise InvalidInputError(
                f"unknown signal {signal!r}",
                field="signal",
                hint="one of up, down, correct, incorrect",
            )
        ns = self.ns(namespace)
        self.judge([record_id], signal, namespace=ns, now=now)
        return self.feedbacks.record(ns, record_id)

    def judge(
        self,
        ids: Iterable[str],
        signal: str,
        *,
        namespace: str | None = None,
        now: datetime | None = None,
    ) -> list[str]:
        """Any feedback signal (access, reinforce, up, down, correct, incorrect) on several
        memories at once: every id must exist, or nothing changes."""
        return self.feedbacks.apply(self.ns(namespace), ids, signal, self.now(now))


def _one(key: tuple[str, str]) -> tuple[str, list[str]]:
    return key[0], [key[1]]
