"""What differs between Cypher servers, and the executor the dialects share."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from memvault.errors import StoreError

# label → the properties the store's queries look nodes up by; each dialect indexes them
LOOKUPS: dict[str, list[str]] = {
    "Namespace": ["name"],
    "Session": ["ns", "id"],
    "Episode": ["ns", "id", "external_id", "content_hash", "session_id"],
    "Entity": ["ns", "id"],
    "Fact": ["ns", "id", "subject_id", "object_id"],
    "Vector": ["ns", "id"],
    "Tombstone": ["ns"],
    "Doc": ["ns", "id"],
}


class Dialect(ABC):
    """One server's side of the Cypher store. ``read`` / ``write`` run one query and return
    its rows; a ``write`` is atomic. Errors come out as :class:`StoreError`."""

    name: str

    @abstractmethod
    def setup(self) -> None:
        """Create the indexes the store's queries need (idempotent)."""

    @abstractmethod
    def _execute(self, query: str, params: dict[str, Any], read_only: bool) -> list[list[Any]]: ...

    @abstractmethod
    def fulltext(
        self, label: str, token: str, words: Sequence[str], k: int
    ) -> tuple[str, dict[str, Any]]:
        """A query returning (id, score) rows, best first, of nodes of ``label`` whose text
        holds ``token`` and any of ``words`` (alphanumeric: nothing to escape)."""

    @abstractmethod
    def drop(self) -> None:
        """Delete everything this store wrote (tests)."""

    @abstractmethod
    def close(self) -> None: ...

    def read(self, query: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        return self._run(query, params, read_only=True)

    def write(self, query: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        return self._run(query, params, read_only=False)

    def _run(self, query: str, params: dict[str, Any] | None, read_only: bool) -> list[list[Any]]:
        try:
            return self._execute(query, params or {}, read_only)
        except StoreError:
            raise
        except Exception as exc:  # each driver raises its own kinds; callers see one
            what = "read failed" if read_only else "write failed, nothing was written"
            raise StoreError(f"{self.name} {what}: {exc}") from exc
