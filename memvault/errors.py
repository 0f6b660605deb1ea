"""memvault's one exception tree.

    MemvaultError                    root: catch this to catch everything memvault raises
    ├── InvalidInputError            bad input; ``field`` names what to fix, ``hint`` how
    │   ├── InvalidBatchError        several bad records (e.g. JSONL lines), each with its place
    │   └── DateRangeError           a date outside what memvault holds (also a ValueError)
    ├── NotFoundError                ``kind`` + ``id`` of the missing record
    ├── ConflictError                the request contradicts stored state
    ├── ConfigError                  a setting is malformed; ``setting`` names it
    ├── StoreError                   the storage backend failed (translated at the adapter)
    │   ├── UnusableStoreError       the file cannot serve as a store: not a database, read-only
    │   │   └── SchemaVersionError   the file was written by a newer memvault
    │   └── CoordinationUnavailable  Redis (coordination, broker) cannot be reached
    ├── EmbeddingError               the embedder could not load or run
    └── LLMError                     the language-model provider failed or answered garbage

Adapters translate their backend's exceptions into the most specific of these at the
boundary; callers (CLI, API) map them to exit codes and HTTP statuses in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


class MemvaultError(Exception):
    """Root of every error memvault raises on purpose."""


class InvalidInputError(MemvaultError):
    def __init__(self, message: str, *, field: str | None = None, hint: str | None = None):
        self.field = field
        self.hint = hint
        text = message if field is None else f"{field}: {message}"
        if hint:
            text = f"{text} ({hint})"
        super().__init__(text)


@dataclass(frozen=True)
class Problem:
    """One rejected record of a batch: where it was and what is wrong with it."""

    where: str
    message: str


class InvalidBatchError(InvalidInputError):
    def __init__(self, problems: list[Problem], *, what: str = "batch", hint: str | None = None):
        self.problems = problems
        shown = "; ".join(f"{p.where}: {p.message}" for p in problems[:5])
        more = f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""
        super().__init__(
            f"{len(problems)} invalid record(s) in {what}, nothing was written: {shown}{more}",
            hint=hint,
        )


class DateRangeError(InvalidInputError, ValueError):
    """A date memvault cannot hold. Also a ``ValueError``, so pydantic reports it under the
    field it came from."""

    def __init__(self, value: datetime, field: str | None = None, accepted: str = ""):
        self.value = value
        super().__init__(
            f"{value.isoformat()} is out of range",
            field=field,
            hint=f"dates must fall {accepted}" if accepted else None,
        )


class NotFoundError(MemvaultError):
    def __init__(self, kind: str, id: str, namespace: str | None = None):
        self.kind = kind
        self.id = id
        self.namespace = namespace
        where = f" in namespace {namespace!r}" if namespace else ""
        super().__init__(f"no {kind} with id {id!r}{where}")


class ConflictError(MemvaultError):
    pass


class ConfigError(MemvaultError):
    def __init__(self, message: str, *, setting: str | None = None):
        self.setting = setting
        super().__init__(message if setting is None else f"{setting}: {message}")


class StoreError(MemvaultError):
    pass


class UnusableStoreError(StoreError):
    """The store cannot be used as configured (a configuration problem the user fixes, not a
    transient failure): the CLI exits 2."""


class SchemaVersionError(UnusableStoreError):
    def __init__(self, found: int, supported: int, path: str):
        self.found = found
        self.supported = supported
        super().__init__(
            f"{path} has schema version {found}, this memvault supports up to {supported}: "
            "upgrade memvault to open it"
        )


class CoordinationUnavailable(StoreError):
    """Redis cannot be reached: job endpoints answer 503, recall keeps working."""


class EmbeddingError(MemvaultError):
    pass


class LLMError(MemvaultError):
    def __init__(self, message: str, *, call_site: str | None = None):
        self.call_site = call_site
        super().__init__(message if call_site is None else f"[{call_site}] {message}")
