"""What was forgotten stays forgotten: a forget keeps the keys of the memories it erased, and
every way in (writes, ingest, hooks, dump imports, memory directories) leaves out a record
that is one of them said again.

A forget erases the text, but the history it came from often still exists outside the vault:
the chat export an ingest read, the transcript a hook sends again, last month's dump. Without
these keys the next import brings the erased memory back. A record is the forgotten one
when it carries the same episode id (a dump of before the forget), the same external id
(the source's own turn id: a replayed transcript), or, without an external id, the same
exact-duplicate key (the same words by the same speaker in the same session; the key of
``memvault.kg.model.content_hash``). The same words said in another session are a new
memory and are written.

The keys are one document per namespace (``forgotten_keys``), written in the forget's own
transaction: ids and keyed hashes, never the text. A hash of a short text can be matched by
someone who holds the vault and guesses the text: that is the price of telling a replay
apart, and why the text itself is never kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from memvault.kg.model import Episode
from memvault.kg.store import Doc, DocumentStore

KIND = "forgotten_keys"
_ID = "keys"


@dataclass(frozen=True)
class ForgottenKeys:
    ids: frozenset[str] = frozenset()
    external_ids: frozenset[str] = frozenset()
    hashes: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.ids or self.external_ids or self.hashes)

    def matches(self, e: Episode, *, by_external_id: bool = True) -> bool:
        """Whether ``e`` is a forgotten memory said again. ``by_external_id`` False: by its
        words only (a memory file's name stays when its text is edited)."""
        if e.id in self.ids:
            return True
        if e.external_id and by_external_id:
            return e.external_id in self.external_ids
        return e.content_hash in self.hashes


def load(store: DocumentStore, namespace: str) -> ForgottenKeys:
    found = store.get_docs(namespace, KIND, [_ID])
    if not found:
        return ForgottenKeys()
    body = found[0].body
    return ForgottenKeys(
        frozenset(body.get("ids", [])),
        frozenset(body.get("external_ids", [])),
        frozenset(body.get("hashes", [])),
    )


def recorded(store: DocumentStore, namespace: str, erased: Sequence[Episode], now: datetime) -> Doc:
    """The namespace's keys with those of ``erased`` added (written with the forget)."""
    keys = load(store, namespace)

    def merged(old: Iterable[str], new: Iterable[str | None]) -> list[str]:
        return sorted(set(old) | {v for v in new if v})

    body = {
        "ids": merged(keys.ids, (e.id for e in erased)),
        "external_ids": merged(keys.external_ids, (e.external_id for e in erased)),
        "hashes": merged(keys.hashes, (e.content_hash for e in erased)),
        "updated_at": now.isoformat(),
    }
    return Doc(KIND, _ID, body, created_at=now)


def left_out(keys: ForgottenKeys, episodes: Sequence[Episode]) -> tuple[list[Episode], int]:
    """``episodes`` without the forgotten ones said again, and how many were left out."""
    if not keys:
        return list(episodes), 0
    kept = [e for e in episodes if not keys.matches(e)]
    return kept, len(episodes) - len(kept)
