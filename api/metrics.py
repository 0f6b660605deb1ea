"""Observability: ``/metrics`` in Prometheus text format and, when configured, one JSON log
line per request (docs/server.md).

- Per request, measured by an ASGI middleware: ``memvault_http_requests_total{method, route,
  status}`` and ``memvault_http_request_seconds{method, route}`` (the route's template, e.g.
  ``/v1/ns/{namespace}/recall``, so namespaces never become label values), and
  ``memvault_recall_seconds`` for recall alone.
- Read from the store when scraped (the last 1,000 runs and items per namespace):
  ``memvault_dream_runs{status}``, ``memvault_dream_changes{op}``,
  ``memvault_review_pending``; and this process's LLM ledger: ``memvault_llm_calls{site}``,
  ``memvault_llm_tokens{site}``.

``/metrics`` wants the admin key (it names no namespace, but counts across all of them).
"""

from __future__ import annotations

import re
import time
import uuid
from collections import Counter
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client import Counter as PromCounter
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memvault.changes.docs import REVIEW, RUN
from memvault.jobs import JobQueue
from memvault.logs import bound, get_logger
from memvault.vault import MemVault

log = get_logger("memvault.requests")
SCAN = 1000  # runs and review items read per namespace per scrape
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class StoreCollector(Collector):
    def __init__(self, vault: MemVault):
        self.vault = vault

    def collect(self) -> Iterator[Metric]:
        runs: Counter[str] = Counter()
        changes: Counter[str] = Counter()
        pending = owed = 0
        store = self.vault.store
        for ns in store.namespaces():
            for doc in store.list_docs(ns, RUN, limit=SCAN):
                runs[doc.status or "unknown"] += 1
                for op, n in (doc.body.get("counts") or {}).items():
                    changes[op] += int(n)
            pending += len(store.list_docs(ns, REVIEW, status="pending", limit=SCAN))
            owed += self.vault.vectors_pending(namespace=ns)
        g = GaugeMetricFamily("memvault_dream_runs", "Dream runs by status", labels=["status"])
        for status, n in sorted(runs.items()):
            g.add_metric([status], n)
        yield g
        g = GaugeMetricFamily(
            "memvault_dream_changes", "Changes of dream runs by op", labels=["op"]
        )
        for op, n in sorted(changes.items()):
            g.add_metric([op], n)
        yield g
        yield GaugeMetricFamily(
            "memvault_review_pending", "Review items waiting for a human", value=pending
        )
        yield GaugeMetricFamily(
            "memvault_vectors_pending",
            "Memories written without their meaning vectors yet (deferred writes)",
            value=owed,
        )
        usage = self.vault.c.llm.usage.snapshot()
        calls = GaugeMetricFamily("memvault_llm_calls", "LLM calls by call site", labels=["site"])
        tokens = GaugeMetricFamily(
            "memvault_llm_tokens", "LLM tokens by call site", labels=["site"]
        )
        for site, u in sorted(usage.items()):
            calls.add_metric([site], u.get("calls", 0))
            tokens.add_metric([site], u.get("prompt_tokens", 0) + u.get("completion_tokens", 0))
        yield calls
        yield tokens


class QueueCollector(Collector):
    """Jobs waiting per kind (dream, prefetch): a dream stuck behind others shows here."""

    def __init__(self, jobs: JobQueue):
        self.jobs = jobs

    def collect(self) -> Iterator[Metric]:
        g = GaugeMetricFamily("memvault_jobs_queued", "Jobs waiting, by kind", labels=["kind"])
        for kind, n in sorted(self.jobs.depth().items()):
            g.add_metric([kind], n)
        yield g


class Metrics:
    """The registry of one app, and the middleware that feeds it."""

    def __init__(self, vault: MemVault, json_logs: bool = False, jobs: JobQueue | None = None):
        self.registry = CollectorRegistry()
        self.json_logs = json_logs
        self.requests = PromCounter(
            "memvault_http_requests",
            "HTTP requests by route and status",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "memvault_http_request_seconds",
            "HTTP request latency by route",
            ["method", "route"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.recall = Histogram(
            "memvault_recall_seconds",
            "Recall requests' latency",
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.registry.register(StoreCollector(vault))
        if jobs is not None:
            self.registry.register(QueueCollector(jobs))

    def render(self) -> bytes:
        return generate_latest(self.registry)


class MetricsMiddleware:
    """Counts and times every HTTP request by its route template; logs it as JSON when asked."""

    def __init__(self, app: ASGIApp, metrics: Metrics):
        self.app, self.m = app, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = {"code": 500}
        rid = request_id(scope)

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", rid.encode()))
                message = {**message, "headers": headers}
            await send(message)

        try:
            with bound(request_id=rid):  # every line logged while serving it carries the id
                await self.app(scope, receive, sending)
        finally:
            took = time.perf_counter() - started
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            method = scope.get("method", "")
            self.m.requests.labels(method, route, str(status["code"])).inc()
            self.m.latency.labels(method, route).observe(took)
            if route.endswith("/recall"):
                self.m.recall.observe(took)
            if self.m.json_logs:
                log.info(
                    "request",
                    request_id=rid,
                    method=method,
                    route=route,
                    status=status["code"],
                    ms=round(took * 1000, 2),
                    namespace=(scope.get("path_params") or {}).get("namespace"),
                )


_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")


def request_id(scope: Scope) -> str:
    """The caller's ``X-Request-ID`` when it is a plain token (letters, digits, ``._:-``, at
    most 64), else a new one: a log line never carries what a caller made up beyond that."""
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            given = value.decode("latin-1")
            if _REQUEST_ID.fullmatch(given):
                return given
    return uuid.uuid4().hex
