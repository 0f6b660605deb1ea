"""The profiling capability of the SDK facade (``vault.profiling``): verdicts on recalls,
knowledge gaps, the interest profile, the diary and prefetch (docs/gaps.md)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, Protocol

from memvault.container import Capability, Facade
from memvault.errors import InvalidInputError
from memvault.kg.store import Batch
from memvault.profile import recall_log
from memvault.recall import Recaller


class ProfilingFacade(Facade, Protocol):
    """What profiling reads of the facade beyond the container: the recaller (prefetch),
    feedback on memories (verdicts) and the discovery inbox (gaps)."""

    recaller: Recaller

    def judge(
        self,
        ids: Iterable[str],
        signal: str,
        *,
        namespace: str | None = None,
        now: datetime | None = None,
    ) -> list[str]: ...

    def inbox(
        self, *, namespace: str | None = None, status: str | None = "unseen", limit: int = 100
    ) -> list[dict[str, Any]]: ...


class Profiling(Capability[ProfilingFacade]):
    def verdict(
        self,
        recall_id: str,
        verdict: str,
        *,
        hit_id: str | None = None,
        namespace: str | None = None,
        now: datetime | None = None,
    ) -> dict[str, Any]:
        """How a logged recall went: ``correct``, ``incorrect`` or ``ambiguous``, for the
        whole answer or one hit (a correct hit is reinforced, an incorrect one loses
        importance). Two ``incorrect`` on one query signature open a knowledge gap; a
        ``correct`` closes it."""
        ns = self.ns(namespace)
        state, signals = recall_log.verdict(
            self.store, ns, recall_id, verdict, self.now(now), hit_id
        )
        for rid, signal in signals:
            if rid in self._memory_ids(ns, [rid]):  # not a persona hit
                self.vault.judge([rid], signal, namespace=ns, now=now)
        from memvault.changes import policy
        from memvault.changes.docs import last_ops

        judged = [hit_id] if hit_id else recall_log.returned(self.store, ns, recall_id)
        ops = sorted(set(last_ops(self.store, ns, judged).values()))
        docs = policy.outcome_docs(self.store, ns, ops, verdict, self.now(now))
        if docs:
            self.store.apply(Batch(namespace=ns, docs=docs, quiet=True))
        return {"recall_id": recall_id, "verdict": verdict, "gap": state, "ops": ops}

    def profile(
        self, *, namespace: str | None = None, now: datetime | None = None
    ) -> dict[str, Any]:
        """What the namespace has been about over ``profile.windows`` (7 / 30 / 90 days):
        entities written about and asked after, intents asked, what is rising and cooling."""
        from memvault.profile.interests import profile

        return profile(self.store, self.ns(namespace), self.now(now), self.settings.profile)

    def diary(
        self,
        *,
        date: str | None = None,
        namespace: str | None = None,
        now: datetime | None = None,
    ) -> dict[str, Any]:
        """The diary page of ``date`` (YYYY-MM-DD; default today): what was written and
        asked that day, the entities on your mind, the delta against the day before. The
        stored snapshot when there is one (``snapshot``: complete / partial), else computed
        now from that day's records."""
        from memvault.profile import diary

        at = self.now(now)
        day = diary.parse_day(date) if date is not None else at.date()
        return diary.diary(self.store, self.ns(namespace), day, at, self.settings.profile)

    def write_diary(
        self, *, namespace: str | None = None, now: datetime | None = None
    ) -> list[str]:
        """Write today's (partial) and yesterday's (complete) snapshots and apply the diary's
        and the recall log's retention (the dream and the nightly check do this)."""
        from memvault.profile.diary import write_snapshots

        return write_snapshots(
            self.store, self.ns(namespace), self.now(now), self.settings.profile, self.c.llm
        )

    def prefetch(
        self, session_id: str, *, namespace: str | None = None, now: datetime | None = None
    ) -> dict[str, Any]:
        """Predict a session's next questions and warm their results (bounded by
        ``prefetch.max_queries``); a later :meth:`recall` with this ``session_id`` is served
        from them while nothing was written. The server runs this as a job after a
        session's writes; call it between turns in embedded use."""
        from memvault.profile import prefetch
        from memvault.profile.interests import profile

        ns, at, s = self.ns(namespace), self.now(now), self.settings.prefetch
        if not session_id or not session_id.strip():
            raise InvalidInputError("is empty", field="session_id")
        rising = prefetch.rising_today(
            self.store, ns, at, lambda: profile(self.store, ns, at, self.settings.profile)
        )
        predictions = prefetch.predict(self.store, ns, session_id, s, rising)
        mark = self.store.watermark(ns)
        computed = [
            (
                p,
                [
                    h.model_dump(mode="json")
                    for h in self.vault.recaller.recall(ns, p.query, k=s.k, now=at)
                ],
            )
            for p in predictions
        ]
        # only what passes the sanity check is kept (31.8: "what do I know about user?")
        warmed = [(p, hits) for p, hits in computed if prefetch.sane(p, hits)]
        docs = prefetch.warm_docs(session_id, warmed, mark, s.k, at)
        keep = {d.id for d in docs}
        drop = prefetch.stale(self.store, ns, session_id, keep, at, s)
        self.store.apply(Batch(namespace=ns, docs=docs, drop_docs=drop, quiet=True, durable=False))
        return {
            "session_id": session_id,
            "warmed": [{"query": p.query, "why": p.why} for p, _ in warmed],
            "not_sane": [p.query for p, hits in computed if not prefetch.sane(p, hits)],
            "dropped": len(drop),
        }

    def _memory_ids(self, ns: str, ids: list[str]) -> set[str]:
        found = {e.id for e in self.store.get_episodes(ns, ids)}
        return found | {f.id for f in self.store.get_facts(ns, ids)}

    def gaps(self, *, namespace: str | None = None) -> list[dict[str, Any]]:
        """Knowledge gaps: recall failures (open) and structural ones (the discovery inbox's),
        each with its kind."""
        ns = self.ns(namespace)
        return recall_log.gaps(
            self.store, ns, self.vault.inbox(namespace=ns, status=None, limit=10_000)
        )
