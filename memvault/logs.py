"""Logs a machine can read: structlog over the standard library's logging.

Every record, memvault's own events (``log.info("request", route=..., ms=...)``) and plain
``logging`` calls from any module alike, goes through one chain: the context bound for the
current request or dream run (``request_id``, ``run_id``, ``namespace``: contextvars, so
concurrent requests never mix), the level, the logger's name and an ISO-8601 UTC ``time``.
:func:`configure` renders it as one JSON object a line (``server.json_logs``) or as plain
text. Until something configures it nothing is printed that was not printed before: events
go to the standard library, whose default shows warnings and errors only.
"""

from __future__ import annotations

import logging
import sys
from typing import IO, Any

import structlog

HANDLER = "memvault-logs"  # the one handler configure() installs (found again by this name)
ROOTS = ("memvault", "api", "workers")  # the loggers whose records it renders

_SHARED: list[Any] = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True, key="time"),
]


def get_logger(name: str) -> Any:
    """A structured logger over ``logging.getLogger(name)``: ``log.info("event", key=value)``.
    Wrapped here rather than through ``structlog.configure``, so an application embedding
    memvault keeps its own structlog configuration."""
    return structlog.wrap_logger(
        logging.getLogger(name),
        processors=[*_SHARED, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        wrapper_class=structlog.stdlib.BoundLogger,
    )


def configure(*, json: bool = True, level: str = "INFO", stream: IO[str] | None = None) -> None:
    """Render memvault's records (and the API's and the workers') on ``stream`` (stderr):
    one JSON object a line with ``time``, ``level``, ``logger`` and ``event``, or plain text.
    Idempotent: a second call replaces the first's handler."""
    renderer: Any = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=_SHARED,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            renderer,
        ],
    )
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.set_name(HANDLER)
    handler.setFormatter(formatter)
    for name in ROOTS:
        logger = logging.getLogger(name)
        for old in [h for h in logger.handlers if h.get_name() == HANDLER]:
            logger.removeHandler(old)
        logger.addHandler(handler)
        logger.setLevel(level)
        logger.propagate = False


bound = structlog.contextvars.bound_contextvars  # with bound(run_id=...): every line carries it
