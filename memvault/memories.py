"""The memories capability of the SDK facade (``vault.memories``): write what happens,
recall what matters, read what is stored, and say how a memory served (feedback). The
capabilities beside it are reached through the facade: the vectors (model check, catch-up),
the background (the janitor on capture) and the persona (attitudes in recall)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol

from memvault.clock import ensure_utc
from memvault.container import Capability, Facade
from memvault.errors import ConflictError, InvalidInputError, NotFoundError, UnusableStoreError
from memvault.feedback import Feedback as FeedbackService
from memvault.ingest.inputs import EpisodeIn, FactIn
from memvault.ingest.normalize import normalize_query
from memvault.ingest.pipeline import Writer, WriteResult
from memvault.kg.model import Episode, Fact, new_id
from memvault.kg.store import Batch
from memvault.profile import recall_log
from memvault.recall import Recall, Recaller
from memvault.recall.results import Hit

if TYPE_CHECKING:
    from memvault.background import Background
    from memvault.capabilities.vectors import Vectors
    from memvault.persona.sdk import Persona

Feedback = Literal["up", "down", "correct", "incorrect"]
log = logging.getLogger(__name__)


class MemoriesFacade(Facade, Protocol):
    """What the memories capability reads of the facade: the shared writer, recaller and
    feedback service, and the capabilities a write or a recall also involves."""

    writer: Writer
    recaller: Recaller
    feedbacks: FeedbackService
    vectors: Vectors
    background: Background
    persona: Persona


class Memories(Capability[MemoriesFacade]):
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
        self.vault.vectors.check_embedder(ns, writing=True)
        defer = self.settings.defer_vectors == "always"
        result = self.vault.writer.write_episodes(
            ns,
            [{"content": content, **fields}],
            now=self.now(now),
            defer_vectors=defer,
            rules_only=self.settings.extract_with_rules if rules_only is None else rules_only,
        )
        if result.forgotten:
            raise ConflictError(
                "this memory was forgotten (memvault forget): the same words in the same "
                "session, or the same external id, are not written again; said in another "
                "session they are a new memory"
            )
        self.vault.vectors.vectors_owed(ns, result.vectors_pending)
        self._captured(ns, result, now)
        return self.store.get_episodes(ns, result.episode_ids)[0]

    def import_chat_export(
        self,
        raw: bytes,
        *,
        namespace: str | None = None,
        fmt: str | None = None,
        user: str | None = None,
        dry_run: bool = False,
        skip_invalid: bool = False,
    ) -> dict[str, Any]:
        """Import a ChatGPT or Claude export (its conversations.json, or the .zip): each
        message a memory, the conversation its session, nothing written twice; all or nothing
        unless ``skip_invalid``; ``dry_run`` writes nothing and says what it would
        (memvault.interop.chat_import, docs/interop.md)."""
        from memvault.interop.chat_import import import_chat_export

        return import_chat_export(
            self.vault, raw, namespace=namespace, fmt=fmt, user=user, dry_run=dry_run,
            skip_invalid=skip_invalid,
        )  # fmt: skip

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
        self.vault.vectors.check_embedder(ns, writing=True)
        if defer_vectors is None:
            defer_vectors = self.settings.defer_vectors == "always"
        result = self.vault.writer.write_episodes(
            ns,
            items,
            now=self.now(now),
            labels=labels,
            defer_vectors=defer_vectors,
            rules_only=self.settings.extract_with_rules if rules_only is None else rules_only,
        )
        self.vault.vectors.vectors_owed(ns, result.vectors_pending)
        self._captured(ns, result, now)
        return result

    def _captured(self, namespace: str, result: WriteResult, now: datetime | None) -> None:
        """After a write: the janitor on its ``onCapture`` schedule, once enough was written
        since its last run."""
        if self.settings.dream.hygiene.schedule == "onCapture":
            self.vault.background.dreamer.capture(namespace, self.now(now))

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
        return self.vault.writer.write_facts(self.ns(namespace), items, now=self.now(now))

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
        query = normalize_query(query)
        k = self.settings.recall.k if k is None else k
        if not 1 <= k <= 1000:
            raise InvalidInputError(f"must be between 1 and 1000, got {k}", field="k")
        ns = self.ns(namespace)
        self.vault.vectors.check_embedder(ns, writing=False)
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
            mark, pending = int(warm["watermark"]), self.vault.vectors.vectors_pending(namespace=ns)
            docs = self.store.get_docs(ns, *_one(recall_log.hint_key(query)))
        else:  # one read of the candidates brings the namespace's state and the gap's hint
            done = self.vault.recaller.recalled(
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

            views = self.vault.persona.service.current(ns, at or self.now(now))
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
            "vectors_pending": self.vault.vectors.vectors_pending(namespace=ns),
            "embedder": self.vault.vectors.embedder_of(ns),
            "tiers": tiers,
            "digests": levels.get("digest", 0),
            "headlines": levels.get("headline", 0),
            "janitor": self.vault.background.dreamer.janitor_snapshot(ns),
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
        return self.vault.feedbacks.record(ns, record_id)

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
        return self.vault.feedbacks.apply(self.ns(namespace), ids, signal, self.now(now))


def _one(key: tuple[str, str]) -> tuple[str, list[str]]:
    return key[0], [key[1]]
