"""Celery configuration from Settings, without side effects (importable anywhere)."""

from __future__ import annotations

from celery import Celery
from celery.schedules import crontab
from kombu import Queue

from memvault.bootstrap import load_settings
from memvault.config import Settings
from memvault.errors import ConfigError

DREAM_QUEUE = "celery"  # Celery's default name: tasks queued by an earlier version still run
PREFETCH_QUEUE = "prefetch"


def beat_schedule(settings: Settings) -> dict[str, dict[str, object]]:
    every = settings.server.dream_check_every_s
    if every:
        return {"dream-check": {"task": "memvault.dream_check", "schedule": every}}
    fields = settings.server.dream_check_cron.split()
    if len(fields) != 5:
        raise ConfigError(
            "needs five fields: minute hour day-of-month month day-of-week",
            setting="server.dream_check_cron",
        )
    minute, hour, day, month, weekday = fields
    return {
        "dream-check": {
            "task": "memvault.dream_check",
            "schedule": crontab(
                minute=minute,
                hour=hour,
                day_of_month=day,
                month_of_year=month,
                day_of_week=weekday,
            ),
        }
    }


def make_celery(settings: Settings | None = None) -> Celery:
    """The app; its configuration is read from Settings when Celery first needs it (a worker
    or beat starting, a task sent), never at import."""
    app = Celery("memvault", include=["workers.tasks"])
    app.add_defaults(lambda: celery_conf(settings or load_settings()))
    return app


def celery_conf(settings: Settings) -> dict[str, object]:
    url = settings.server.redis_url
    if not url:
        raise ConfigError(
            "Celery needs Redis: set MEMVAULT_SERVER__REDIS_URL", setting="server.redis_url"
        )
    return {
        "broker_url": url,
        "result_backend": url,
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "task_serializer": "json",
        "result_serializer": "json",
        "accept_content": ["json"],
        "result_expires": 7 * 24 * 3600,
        "task_track_started": True,
        "broker_transport_options": {
            "visibility_timeout": settings.server.task_visibility_timeout_s,
            # sweep for tasks of dead workers at the pace of the timeout, not every ~100 s
            "unacked_restore_interval": min(10, settings.server.task_visibility_timeout_s),
            "unacked_restore_throttle": 1,
        },
        "broker_connection_retry_on_startup": True,
        "beat_schedule": beat_schedule(settings),
        "timezone": "UTC",
        # dreams (and the nightly check) and prefetch in separate queues: a worker started
        # without -Q consumes both in turn, so a flood of prefetch delays a dream by at most
        # one job; a deployment can give prefetch workers of its own (-Q prefetch)
        "task_default_queue": DREAM_QUEUE,
        "task_queues": [Queue(DREAM_QUEUE), Queue(PREFETCH_QUEUE)],
        "task_routes": {"memvault.prefetch": {"queue": PREFETCH_QUEUE}},
    }
