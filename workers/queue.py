"""The API's job queue in server mode: tasks to Celery over Redis, status from its results."""

from __future__ import annotations

from typing import Any

from memvault.config import Settings
from memvault.coord.redis import CoordinationUnavailable
from memvault.jobs import JobQueue

_STATES = {
    "PENDING": "queued",
    "RECEIVED": "queued",
    "STARTED": "running",
    "RETRY": "queued",
    "SUCCESS": "done",
    "FAILURE": "failed",
    "REVOKED": "dropped",  # an expired prefetch, or revoked by an operator
}


PREFETCH_EXPIRES_S = 300


class CeleryJobs(JobQueue):
    def __init__(self, settings: Settings):
        from workers.celery_config import make_celery

        self.app = make_celery(settings)
        self.url = settings.server.redis_url

    def check(self) -> None:
        try:
            with self.app.connection_for_write() as conn:
                conn.ensure_connection(max_retries=1, timeout=2)
        except Exception as exc:  # kombu raises its own and OSError kinds
            raise CoordinationUnavailable(
                f"the job queue (Redis at {self.url}) is unavailable: {exc}"
            ) from exc

    def submit_dream(self, namespace: str, *, apply: bool, force: bool) -> str:
        try:
            result = self.app.send_task(
                "memvault.dream_namespace",
                args=[namespace],
                kwargs={"apply": apply, "force": force},
                retry=False,
            )
        except Exception as exc:
            raise CoordinationUnavailable(f"could not queue the dream: {exc}") from exc
        return str(result.id)

    def submit_catch_up(self, namespace: str) -> str:
        try:
            result = self.app.send_task("memvault.catch_up", args=[namespace], retry=False)
        except Exception as exc:
            raise CoordinationUnavailable(f"could not queue the catch-up: {exc}") from exc
        return str(result.id)

    def submit_prefetch(self, namespace: str, session_id: str) -> str:
        try:
            # a prediction loses its worth with time: an old one is dropped, not run
            result = self.app.send_task(
                "memvault.prefetch",
                args=[namespace, session_id],
                retry=False,
                expires=PREFETCH_EXPIRES_S,
            )
        except Exception as exc:
            raise CoordinationUnavailable(f"could not queue the prefetch: {exc}") from exc
        return str(result.id)

    def depth(self) -> dict[str, int]:
        """Messages waiting in each queue (Redis lists named after the queues)."""
        from workers.celery_config import DREAM_QUEUE, PREFETCH_QUEUE

        try:
            with self.app.connection_for_read() as conn:
                client = conn.default_channel.client
                return {
                    "dream": int(client.llen(DREAM_QUEUE)),
                    "prefetch": int(client.llen(PREFETCH_QUEUE)),
                }
        except Exception:  # kombu and redis raise their own kinds: depth is best effort
            return {}

    def status(self, job_id: str) -> dict[str, Any]:
        try:
            result = self.app.AsyncResult(job_id)
            state = result.state
            out: dict[str, Any] = {"job_id": job_id, "status": _STATES.get(state, state.lower())}
            if state == "SUCCESS":
                out["result"] = result.result
                out["namespace"] = result.result.get("namespace")
            elif state == "FAILURE":
                out["error"] = f"{type(result.result).__name__}: {result.result}"
        except Exception as exc:
            raise CoordinationUnavailable(f"job status unavailable: {exc}") from exc
        return out
