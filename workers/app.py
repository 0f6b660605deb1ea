"""The Celery app: broker and results on Redis, configured from Settings when Celery first
needs its configuration (not at import).

    celery -A workers.app worker --loglevel=INFO
    celery -A workers.app beat --loglevel=INFO

Tasks acknowledge late (after they finish), so a task whose worker dies is delivered again
(after ``server__task_visibility_timeout_s``) and re-runs safely: dreams are idempotent.
"""

from __future__ import annotations

from workers.celery_config import make_celery

app = make_celery()
