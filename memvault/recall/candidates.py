"""The working set of one recall: candidate keys, their records and their signals."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from memvault.kg.model import Entity, Episode, Fact, episode_order, fact_order, normalize_name
from memvault.recall.results import Explanation
from memvault.recall.scoring import Factors

Key = tuple[str, str]  # (kind, id)
SIGNALS = (
    "dense", "keyword", "graph", "actor", "person", "context", "session", "time", "phrase",
    "thin", "when", "amount", "asks", "flat", "parts", "where", "names",
)  # fmt: skip


class Candidates:
    def __init__(self, namespace: str):
        self.ns = namespace
        self.mark = 0  # the namespace's watermark when this recall began
        self.keys: dict[Key, None] = {}  # insertion-ordered set
        self.signal: dict[str, dict[Key, float]] = {name: {} for name in SIGNALS}
        self.ranks: dict[Key, dict[str, int]] = defaultdict(dict)
        self.entities: dict[Key, list[str]] = defaultdict(list)
        self.episodes: dict[str, Episode] = {}
        self.facts: dict[str, Fact] = {}
        self.query_entities: list[Entity] = []
        # (signal, key) -> the episode whose score lent that lift (context, session)
        self.lent: dict[tuple[str, Key], str] = {}
        self.quoting: list[str] = []  # episodes a phrase search found (may quote the query)
        self.mentions: dict[str, set[str]] = defaultdict(set)  # episode → entities it names
        self.speaking: set[str] = set()  # the entities of the leading episodes' speakers
        self.speakers_read: set[str] = set()  # the speakers whose entities were looked up
        self.kinds: dict[str, str] = {}  # entity id → its type, for the entities read
        self.names: dict[str, list[str]] = {}  # entity id → its names, for the entities read
        self.query_vector: np.ndarray = np.zeros(0, dtype=np.float32)  # unit length
        self.vectors: dict[Key, np.ndarray] = {}  # (kind, id) → vector, where one was read
        self.asked_vectors: set[Key] = set()  # asked of the store (found or not: pending)
        self.spare: dict[str, Episode] = {}  # episodes read that are not candidates (yet)
        self.statements: list[str] = []  # episodes that may state what the query asks
        self.endings: set[str] = set()  # episodes saying a thing the leading ones name ended
        # episodes found by searching the store for the words of a leading statement's frame
        self.framed: dict[str, Episode] = {}
        self.frame_joined: set[str] = set()  # those of them that joined the candidates
        self.judged_until: datetime | None = None  # the last dream that judged statements

    def add_channel(self, name: str, kind: str, ranked: Sequence[tuple[str, float]]) -> None:
        for rank, (rid, score) in enumerate(ranked, start=1):
            key = (kind, rid)
            self.keys.setdefault(key, None)
            self.signal[name][key] = score
            self.ranks[key][f"{name}:{kind}"] = rank

    def order(self, key: Key) -> tuple[object, ...]:
        """Between equal scores, the same order on every run and in every copy of a vault:
        episodes before facts, then time, session order and text (random ids only between
        identical records; a record not read yet after those read). Without it, equal scores
        keep the order the channels found them in, which moves with the last bits of a vector
        (a text embedded in another batch), and one tie at a cut-off changes who is lent to."""
        kind, rid = key
        if kind == "episode" and (e := self.episodes.get(rid)) is not None:
            return (0, *episode_order(e))
        if kind == "fact" and (f := self.facts.get(rid)) is not None:
            return (1, *fact_order(f))
        return (2, kind, rid)

    def by_score(self, score: dict[Key, float], kind: str) -> list[Key]:
        """The keys of ``kind`` in ``score``, best first; equal scores the latest in
        :meth:`order` first (of eighteen "I see." that score alike, the newest lead and lend to
        their neighbours, as a newer statement leads its group)."""
        keys = sorted((key for key in score if key[0] == kind), key=score.__getitem__, reverse=True)
        values = [score[key] for key in keys]
        start = 0  # each run of equal scores ordered; no key is ordered where none tie
        for end in range(1, len(keys) + 1):
            if end == len(keys) or values[end] != values[start]:
                if end - start > 1:
                    keys[start:end] = sorted(keys[start:end], key=self.order, reverse=True)
                start = end
        return keys

    def ids(self, kind: str) -> list[str]:
        return [rid for k, rid in self.keys if k == kind]

    def named(self) -> set[str]:
        """Normalised names the query mentions, from the entities it matched."""
        return {normalize_name(n) for e in self.query_entities for n in e.names()}

    def explain(self, key: Key, factors: Factors, repeats: Sequence[str] = ()) -> Explanation:
        return Explanation(
            signals={
                name: round(values[key], 6) for name, values in self.signal.items() if key in values
            },
            ranks=dict(self.ranks.get(key, {})),
            entities=list(dict.fromkeys(self.entities.get(key, []))),
            factors=factors,
            repeats=list(repeats),
        )
