"""The ASGI app factory for ``uvicorn api.main:build --factory`` (docker-compose's api
service): built from Settings when uvicorn starts, never at import; with
``server__redis_url`` set, jobs go to Celery workers, else in-process."""

from __future__ import annotations

from fastapi import FastAPI

from api.app import create_app
from memvault.bootstrap import load_settings
from memvault.jobs import InProcessJobs, JobQueue
from memvault.vault import MemVault


def build() -> FastAPI:
    settings = load_settings()
    vault = MemVault.open(settings=settings)
    jobs: JobQueue
    if settings.server.redis_url:
        from workers.queue import CeleryJobs

        jobs = CeleryJobs(settings)
    else:
        jobs = InProcessJobs(vault.c, interval_s=settings.server.dream_check_interval_s)
    return create_app(vault, jobs)
