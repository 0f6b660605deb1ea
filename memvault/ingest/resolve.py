"""Resolution inside one write batch: names to entities (existing, or new ones created once
per batch) and extracted facts to new facts or reinforcement of a live identical one."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache

from memvault.kg import vocabulary
from memvault.kg.model import Entity, EntityType, Episode, Fact, normalize_name
from memvault.kg.store import FactQuery, Store
from memvault.kg.vocabulary import EntityTypeDef
from memvault.language.kinds import kind_of
from memvault.language.lexicon import common_word, proper_name
from memvault.llm.prompts import ExtractedEntity, Extraction

_WORD = re.compile(r"\w+")
# the longest name an Entity holds: a longer one, from a model's run-on answer, is no one's
NAME_LIMIT = next(
    m.max_length for m in Entity.model_fields["name"].metadata if hasattr(m, "max_length")
)


class Entities:
    """Entity resolution within one batch: stored entities first, then new ones."""

    def __init__(
        self,
        store: Store,
        namespace: str,
        now: datetime,
        own_types: dict[str, EntityTypeDef] | None = None,
    ):
        self.store, self.namespace, self.now = store, namespace, now
        self.own_types = own_types or {}  # the namespace's own entity types
        self.by_norm: dict[str, Entity] = {}
        self.new: dict[str, Entity] = {}
        self.touched: dict[str, Entity] = {}
        self.speakers: list[Entity] = []  # the batch's speakers: whom a nickname may mean
        self.recurring: set[str] = set()

    def prepare(self, episodes: Sequence[Episode], extractions: Sequence[Extraction]) -> None:
        """Before resolving a batch: the stored entities its names may be, its speakers,
        and the tentative names it shows to be names (``recurring_openers``)."""
        self.preload(
            [x.name for ex in extractions for x in ex.entities]
            + [f.subject for ex in extractions for f in ex.facts]
        )
        self.speaking(episodes)
        self.recurring = recurring_openers(episodes, extractions)
        if self.own_types:  # "my dog Pepper": a type of the namespace's, by its cue
            for episode, ex in zip(episodes, extractions, strict=True):
                for x in ex.entities:
                    x.type = vocabulary.cued(episode.content, x.name, self.own_types) or x.type

    def keeps(self, x: ExtractedEntity) -> bool:
        """A name is kept; a tentative one (capitalised only because it opens a sentence)
        only if the namespace knows it or the batch shows it to be a name."""
        if len(x.name.strip()) > NAME_LIMIT:
            return False
        return not x.tentative or self.known(x.name) or x.name.lower() in self.recurring

    def preload(self, names: Sequence[str]) -> None:
        for entity in self.store.find_entities(self.namespace, names):
            for n in entity.names():
                self.by_norm.setdefault(normalize_name(n), entity)

    def speaking(self, episodes: Sequence[Episode]) -> None:
        """The batch's speakers resolved (as first heard) before anything they are called:
        "Hey Mel!" may come before Melanie's first turn."""
        first: dict[str, datetime] = {}
        for e in episodes:
            if e.speaker and e.speaker not in first:
                first[e.speaker] = e.occurred_at
        self.speakers = [self.resolve(name, "person", at) for name, at in first.items()]

    def known(self, name: str) -> bool:
        """The namespace (or this batch) already has an entity of this name."""
        return (normalize_name(name) or name.lower()) in self.by_norm

    def resolve(self, name: str, etype: str, seen_at: datetime) -> Entity:
        norm = normalize_name(name) or name.lower()
        entity = self.by_norm.get(norm) or self._nickname(name, norm)
        if entity is None:
            entity = Entity(
                namespace=self.namespace,
                name=name.strip(),
                type=vocabulary.known(etype, self.own_types),
                created_at=self.now,
                last_seen_at=seen_at,
            )
            self.by_norm[norm] = entity
            self.new[entity.id] = entity
        elif entity.type == EntityType.UNKNOWN or etype in self.own_types:
            # a type of the namespace's own is more telling than a built-in one
            entity.type = vocabulary.known(etype, self.own_types)
        if seen_at > entity.last_seen_at:
            entity.last_seen_at = seen_at
        if entity.id not in self.new:
            self.touched[entity.id] = entity
        return entity

    def _nickname(self, name: str, norm: str) -> Entity | None:
        """The one speaker of the batch whose first name this single word begins ("Mel" →
        Melanie, "Cal" → Calvin, at least three letters): it becomes an alias of theirs.
        Two such speakers, or none: a name of its own."""
        if " " in norm or len(norm) < 3:
            return None
        meant = {
            e.id: e
            for e in self.speakers
            if (first := normalize_name(e.name).split(" ")[0]) != norm and first.startswith(norm)
        }
        if len(meant) != 1:
            return None
        entity = next(iter(meant.values()))
        entity.aliases.append(name.strip())
        self.by_norm[norm] = entity
        return entity

    def changed(self) -> list[Entity]:
        return [*self.new.values(), *self.touched.values()]


class Facts:
    """New facts of a batch, or reinforcement of a live identical one. A restatement is
    gathered as plain values and set on the fact once, by :meth:`settle` (a bulk import
    restates the same fact hundreds of times; each assignment to a model is validated)."""

    def __init__(self, store: Store, namespace: str, now: datetime):
        self.store, self.namespace, self.now = store, namespace, now
        self.live: dict[tuple[str, str, str], Fact] = {}
        self.loaded: set[str] = set()
        self.created: dict[str, Fact] = {}
        self.reinforced: dict[str, Fact] = {}
        self._restated: dict[str, _Restated] = {}

    def _load(self, subject_id: str) -> None:
        if subject_id in self.loaded:
            return
        self.loaded.add(subject_id)
        for fact in self.store.list_facts(
            self.namespace, FactQuery(subject_ids=[subject_id], limit=100_000)
        ):
            if fact.invalid_at is None:
                self.live.setdefault(fact.key(), fact)

    def add(self, candidate: Fact) -> Fact:
        """The fact ``candidate`` becomes: itself, or the live identical one it restates
        (whose new values :meth:`settle` sets)."""
        self._load(candidate.subject_id)
        key = candidate.key()
        existing = self.live.get(key)
        if existing is None:
            self.live[key] = candidate
            self.created[candidate.id] = candidate
            return candidate
        restated = self._restated.get(existing.id)
        if restated is None:
            restated = self._restated[existing.id] = _Restated(existing)
        counts = existing.id not in self.created  # a restatement within the batch: no count
        restated.take(candidate, counts=counts)
        if counts:
            self.reinforced[existing.id] = existing
        return existing

    def settle(self) -> None:
        """Set the gathered restatements on their facts (once each); before the batch's
        facts are read."""
        for restated in self._restated.values():
            restated.settle()
        self._restated.clear()


class _Restated:
    """What the restatements of one fact in a batch add up to."""

    def __init__(self, fact: Fact):
        self.fact = fact
        self.episodes = dict.fromkeys(fact.source_episode_ids)
        self.sessions = dict.fromkeys(fact.source_session_ids)
        self.confidence = fact.confidence
        self.valid_at = fact.valid_at
        self.confirmed = fact.last_reinforced_at
        self.count = 0

    def take(self, candidate: Fact, *, counts: bool) -> None:
        self.episodes.update(dict.fromkeys(candidate.source_episode_ids))
        self.sessions.update(dict.fromkeys(candidate.source_session_ids))
        self.confidence = max(self.confidence, candidate.confidence)
        # a restatement keeps the earliest time it is known true from and the latest
        # confirmation: one dated earlier ("since 2020") never moves the confirmation back
        if counts:
            self.confirmed = max(
                t for t in (self.confirmed, self.valid_at, candidate.valid_at) if t
            )
            self.count += 1
        self.valid_at = min(self.valid_at, candidate.valid_at)

    def settle(self) -> None:
        fact = self.fact
        fact.source_episode_ids = list(self.episodes)
        fact.source_session_ids = list(self.sessions)
        fact.confidence = self.confidence
        fact.valid_at = self.valid_at
        if self.count:
            fact.reinforced_count += self.count
            fact.last_reinforced_at = self.confirmed


def could_name(name: str, texts: Sequence[str] = ()) -> bool:
    """Could a word that keeps opening sentences be a name: one no dictionary has, one world
    knowledge also knows as a name (a given name, a place, a proper name of Webster's: "Bill",
    "Florence"), or one that stands where a name does — before a word, not before a comma,
    an exclamation or an article ("Zed called again"). "Certainly!", "Furthermore,",
    "Define the budget" open an assistant's replies and list items again and again and
    name nothing."""
    if " " in name or not common_word(name):
        return True
    if proper_name(name) or kind_of(name) in ("person", "place"):
        return True
    after = [m.group(1) or m.group(2) for t in texts for m in _after(name).finditer(t)]
    return bool(after) and 2 * sum(_as_a_name(a) for a in after) > len(after)


_FUNCTION_AFTER = frozenset(
    "the a an your my our their his her its this that these those some any each every all "
    "no more most".split()
)


@lru_cache(maxsize=4096)
def _after(name: str) -> re.Pattern[str]:
    """The capitalised word and what follows it: its next character if not a space, else
    its next word."""
    return re.compile(rf"\b{re.escape(name.capitalize())}\b(?:(\S)|\s+(\w+))")


def _as_a_name(first: str | None) -> bool:
    """What follows is a word that is no article or possessive, or a possessive's mark."""
    if first is None:
        return False
    return first in ("'", "’") or (first[0].isalnum() and first.lower() not in _FUNCTION_AFTER)


def recurring_openers(episodes: Sequence[Episode], extractions: Sequence[Extraction]) -> set[str]:
    """Tentative names (capitalised only where they open a sentence) that open sentences in
    at least three memories of the batch and are never written in lower case in it: "Bill
    called again about the invoice" said on six days names Bill; "Gaming can be…" beside
    "I love gaming" names nothing, and neither does a verb's -ing form that keeps opening
    lines ("Dancing brings me joy", a LoCoMo session). Three, not two: chosen on the dev
    sample of bench/entity_names.py, where two let "Gotcha"-like openers through."""
    seen = Counter(
        name
        for ex in extractions
        for name in {x.name.lower() for x in ex.entities if x.tentative}
        if not name.endswith("ing")
    )
    texts = [e.content for e in episodes]
    candidates = {name for name, n in seen.items() if n >= 3 and could_name(name, texts)}
    if not candidates:
        return set()
    # a one-word name is written in lower case where it is a whole run of word characters:
    # one pass over the batch's words, not one search of every text per name
    one_word = {name for name in candidates if _WORD.fullmatch(name)}
    batch_words = {w for t in texts for w in _WORD.findall(t)} if one_word else set()

    def written_lower(name: str) -> bool:
        if name in one_word:
            return name in batch_words
        return any(name in t and re.search(rf"\b{re.escape(name)}\b", t) for t in texts)

    return {name for name in candidates if not written_lower(name)}
