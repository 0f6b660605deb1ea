"""The forgetting capability of the SDK facade (``vault.forgetting``): forget memories, erase
a data subject, correct a memory; each delegates to
:class:`memvault.capabilities.forget.Forgetting` (``.service``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from memvault.capabilities.forget import Correction, ForgetPlan, Forgetting
from memvault.container import Capability, Facade
from memvault.errors import ConflictError, InvalidInputError, NotFoundError
from memvault.ingest.pipeline import Writer


class ForgetFacade(Facade, Protocol):
    """What forgetting reads of the facade beyond the container: the writer (a correction
    is written as a new memory)."""

    writer: Writer


class Forgetter(Capability[ForgetFacade]):
    @property
    def service(self) -> Forgetting:
        return Forgetting(self.c.store, self.c.coord, self.c.settings)

    def forget(
        self,
        ids: str | Sequence[str],
        *,
        namespace: str | None = None,
        dry_run: bool = False,
        by: str = "sdk",
        now: datetime | None = None,
    ) -> ForgetPlan:
        """Erase memories (episode ids) and everything derived only from them; what other
        memories also support stays, without them. ``dry_run``: the plan, nothing changed.
        Cannot be undone; undo of an earlier dream run does not bring them back."""
        ns = self.ns(namespace)
        plan = self.service.plan(ns, [ids] if isinstance(ids, str) else list(ids))
        return plan if dry_run else self.service.apply(plan, by=by, now=self.now(now))

    def forget_subject(
        self,
        name: str,
        *,
        namespace: str | None = None,
        dry_run: bool = True,
        by: str = "sdk",
        now: datetime | None = None,
    ) -> ForgetPlan:
        """Everything about one person (a data subject): by default a dry run listing what
        would go; ``dry_run=False`` erases it."""
        ns = self.ns(namespace)
        plan = self.service.plan_subject(ns, name)
        return plan if dry_run else self.service.apply(plan, by=by, now=self.now(now))

    def correct(
        self,
        episode_id: str,
        text: str,
        *,
        namespace: str | None = None,
        by: str = "sdk",
        now: datetime | None = None,
    ) -> Correction:
        """Write the corrected version of a memory; the old one is retired (kept in the
        history, marked as corrected) with the facts derived only from it."""
        ns = self.ns(namespace)
        found = self.c.store.get_episodes(ns, [episode_id])
        if not found:
            raise NotFoundError("episode", episode_id, ns)
        old = found[0]
        if old.expired_at is not None:
            raise InvalidInputError(
                f"episode {episode_id} is retired already", field="id", hint="correct a live one"
            )
        at = self.now(now)
        item: dict[str, Any] = {
            "content": text,
            "type": old.type,
            "speaker": old.speaker,
            "session_id": old.session_id,
            "occurred_at": old.occurred_at,
            "metadata": {"corrects": old.id},
        }
        result = self.vault.writer.write_episodes(ns, [item], now=at)
        if result.forgotten:
            raise ConflictError(
                "the corrected text is a memory that was forgotten in this session "
                "(memvault forget): it is not written again; word the correction otherwise"
            )
        new_id = result.episode_ids[0] if result.episode_ids else None
        if new_id is None or new_id == old.id:
            raise InvalidInputError(
                "says what the memory already says", field="text", hint="give the corrected text"
            )
        (new,) = self.c.store.get_episodes(ns, [new_id])
        return self.service.retire_corrected(ns, old, new, by=by, now=at)
