"""Recall's currency step (memvault.recall.engine calls it after fusion): verdicts from the
facts about what the query and the leading candidates name, the episode-level updates that
join them (memvault.recall.episode_updates), and for a question about now the groups of
statements that mean the same thing (memvault.recall.groups). It reads the store; the
judging itself is in those pure modules."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Literal

from memvault.config import RecallSettings
from memvault.embed.steady import steady
from memvault.kg.model import Episode, episode_order
from memvault.kg.store import Store
from memvault.kg.update_questions import asked_attributes
from memvault.kg.updates import statements
from memvault.language.asked import asked_kind, asks_for_many
from memvault.language.claims import claim_tokens
from memvault.language.endings import ends
from memvault.language.person import in_first_person
from memvault.language.text import sentences
from memvault.recall import episode_updates, frame_search, groups
from memvault.recall.candidates import Candidates, Key
from memvault.recall.currency import Assessment, Verdict, assess
from memvault.recall.groups import is_question


def cosines(c: Candidates, kind: Literal["episode", "fact"], ids: Sequence[str]) -> None:
    """The exact cosine of each of ``ids`` with the query, as its dense signal, from the
    vectors the reads brought (none for a memory still waiting for its vector)."""
    for rid in ids:
        v = c.vectors.get((kind, rid))
        if v is not None:
            c.signal["dense"][(kind, rid)] = steady(float(v @ c.query_vector))


def discount_lent(c: Candidates, score: dict[Key, float], verdicts: Assessment) -> None:
    """A lift lent by a statement that was replaced shrinks with it: the turn next to
    "I live in Berlin" must not rise on Berlin's relevance once Lisbon replaced it."""
    for (signal, key), anchor in c.lent.items():
        v = verdicts.episodes.get(anchor)
        if v is None or v.factor >= 1.0 or key[1] == anchor:
            continue
        lent = c.signal[signal].get(key, 0.0)
        score[key] = score.get(key, 0.0) - lent * (1.0 - v.factor)
        c.signal[signal][key] = lent * v.factor


_ENDING_LEADS = 3  # leading episodes whose things may have ended


@lru_cache(maxsize=1024)
def _names_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    """Any of ``names`` as a whole word (case-folded names, longest first)."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def _about_oneself(e: Episode, c: Candidates, kind: str, values: Sequence[str]) -> bool:
    """A statement its speaker makes about themselves, not a question: one that names no
    one else when a place is asked for ("My sister Lena visits from Hamburg" is about Lena),
    one whose sentence naming the person (``values``) is in the first person when a person
    is ("Tobi asked me out"; "Lena is coming to Lisbon" is not, nor a pasted script whose
    comment names "Max" pages after an "I")."""
    text = e.content.strip()
    if is_question(e):
        return False
    if kind == "person":
        names = tuple(sorted({n.casefold() for x in values for n in c.names.get(x, []) if n}))
        if names:
            said = _names_pattern(names)
            naming = [s for s in sentences(text) if said.search(s)]
            text = " ".join(naming) or text  # a name written otherwise: the whole text
        return in_first_person(text)
    others = c.mentions.get(e.id, set()) - c.speaking
    return not any(c.kinds.get(x) == "person" for x in others)


class CurrencyStep:
    def __init__(
        self,
        store: Store,
        settings: RecallSettings,
        single_valued: Callable[[str], bool],
        opposites: frozenset[frozenset[str]] = frozenset(),
    ):
        self.store, self.s = store, settings
        self.single_valued = single_valued
        self.opposites = opposites

    def newest_groups(
        self,
        c: Candidates,
        query: str,
        score: dict[Key, float],
        answers: set[str],
        then: datetime | None = None,
    ) -> dict[str, list[str]]:
        """For a question about now, the leading episodes that mean the same thing, grouped
        (memvault.recall.groups): the newest of each → the others. The statements the rules
        call the answer (``answers``) are among them wherever they scored: a rule knows
        some wordings of a change, so a newer statement it could not read may replace its
        answer. For a question about a past time (``then``: memvault.language.when.
        looked_back) the same groups, which ranking orders as of then; nothing that ended
        since then leads them."""
        if self.s.group_cosine <= 0 or not (then or groups.asks_about_now(query)):
            return {}
        if not self.s.group_many and asks_for_many(query):
            return {}  # several answers stand side by side: a newer one replaces none
        if c.signal["phrase"]:
            return {}  # it quotes a memory: it asks for that one, not for a newer version
        leading = c.by_score(score, "episode")
        top = score[leading[0]] if leading else 0.0
        ids = [
            i
            for key in leading[: self.s.group_top]
            if score[key] >= self.s.group_band * top and (i := key[1]) in c.episodes
        ]
        ids += [i for i in sorted(answers) if i in c.episodes and i not in ids]
        naming = self._answers_of_kind(c, query, leading) if self.s.group_kind else []
        ids += [i for i in naming if i not in ids]
        # a question states nothing ("Should I visit Antwerp or Ghent?"): it never leads
        ids = [i for i in ids if not is_question(c.episodes[i])]
        ids = self._about_what_is_named(c, ids)
        framed: set[frozenset[str]] = set()
        apart: set[str] = set()  # framed statements below the band: grouped by frame only
        if self.s.group_frames:  # the same words for another value, wherever it scored
            near_top = [k[1] for k in leading[: self.s.group_top] if k[1] in c.episodes]
            newer = frame_search.join_newer(c, score, near_top)
            cosines(c, "episode", newer)  # their vectors came with read 4
            near_top += newer
            framed = groups.frame_pairs(
                [c.episodes[i] for i in near_top if not is_question(c.episodes[i])]
            )
            near = set(ids)
            joined = [
                i for i in near_top if i not in near and any(i in p and p & near for p in framed)
            ]
            apart = {i for p in framed if not p & near for i in p} - set(joined)
            apart = set(self._about_what_is_named(c, sorted(apart)))  # as the others
            ids += joined + [i for i in near_top if i in apart]
        ids = _holding_the_numbers_asked(c, query, ids)
        ended = self._endings(c, score, ids) if self.s.group_endings and not then else set()
        ids += [i for pair in ended for i in pair if i not in ids]
        self.vectors_for(c, "episode", ids)
        cosines(c, "episode", [i for pair in ended for i in pair])
        vectors = {i: v for i in ids if (v := c.vectors.get(("episode", i))) is not None}
        if then:  # ranking orders a group as of then by which statements name a value
            self._read_names(c, ids)
        linked = self._naming(c, ids) if self.s.group_named else set()
        linked |= groups.naming_pairs(naming) | framed | ended
        return groups.newest_of_groups(
            [c.episodes[i] for i in ids],
            vectors,
            self.s.group_cosine,
            self.s.group_linkage,
            linked,
            by_link_only=apart,
        )

    def _endings(
        self, c: Candidates, score: dict[Key, float], ids: list[str]
    ) -> set[frozenset[str]]:
        """Pairs (leading episode, a newer one by its speaker saying that a thing it names
        ended: memvault.language.endings), from every episode this recall read: "How is
        Maya's dog doing?" finds the adoption, and "Biscuit passed away" shares no word with
        it. An ending names the thing by its mentions or, where those were not read, by one
        of its names in its words; one read but not a candidate joins the candidates with
        the score of the best episode it ends. No store call: a recall reads once."""
        lead = [i for i in ids[:_ENDING_LEADS] if i in c.mentions]
        things = {x for i in lead for x in c.mentions[i] - c.speaking}
        if not things:
            return set()
        of_name = {n.casefold(): x for x in things for n in c.names.get(x, []) if len(n) > 2}
        said = _names_pattern(tuple(sorted(of_name))) if of_name else None
        pairs: set[frozenset[str]] = set()
        for rid, e in {**c.spare, **c.episodes}.items():
            if rid in lead:
                continue
            named = c.mentions.get(rid, set()) & things
            if not named and said is not None and rid not in c.mentions:
                found = (of_name.get(m.group(0).casefold()) for m in said.finditer(e.content))
                named = {x for x in found if x is not None}
            if not named or is_question(e) or not ends(e.content):
                continue
            for i in lead:
                old = c.episodes[i]
                if (
                    named & c.mentions[i]
                    and (old.speaker or "").casefold() == (e.speaker or "").casefold()
                    and episode_order(old) < episode_order(e)
                ):
                    pairs.add(frozenset((i, rid)))
                    c.endings.add(rid)
                    c.episodes.setdefault(rid, e)
                    key = ("episode", rid)
                    c.keys.setdefault(key, None)
                    score[key] = max(score.get(key, 0.0), score.get(("episode", i), 0.0))
        return pairs

    def _about_what_is_named(self, c: Candidates, ids: list[str]) -> list[str]:
        """A question naming something other than the speakers ("Where is Hotel Vasquez?")
        asks about it: only statements naming it may stand for one another (a newer "We
        went to Delft today" is no newer version of "We booked the Hotel Vasquez")."""
        named = {e.id for e in c.query_entities}
        if not named:
            return ids
        self._read_names(c, ids)
        named -= c.speaking
        if not named:
            return ids
        return [i for i in ids if c.mentions.get(i, set()) & named]

    def _answers_of_kind(self, c: Candidates, query: str, leading: list[Key]) -> list[str]:
        """For a question asking for a place or a person (memvault.language.asked), the
        leading statements a speaker makes about themselves that name one of that kind, one
        per value, the best scored ("I moved to Lisbon" speaks for Lisbon, not a later
        "training for the Lisbon half marathon"): answers to it wherever they scored."""
        kind = asked_kind(query)
        if kind is None:
            return []
        speaks_for: dict[str, str] = {}
        for key in leading[: self.s.group_top]:
            e = c.episodes.get(key[1])
            named = c.mentions.get(key[1], set()) - c.speaking
            values = sorted(x for x in named if c.kinds.get(x) == kind)
            if e and values and _about_oneself(e, c, kind, values):
                for x in values:
                    speaks_for.setdefault(x, key[1])
        return list(dict.fromkeys(speaks_for.values()))

    def _vectors_wanted(
        self,
        c: Candidates,
        score: dict[Key, float],
        leading: list[Episode],
        loading: list[str],
        fresh_facts: list[str],
    ) -> list[Key]:
        """The vectors the rest of this recall compares that no read brought: the episodes
        that may be grouped (the leading by score, those being loaded, the statements), and
        the current facts that join the candidates."""
        top = c.by_score(score, "episode")
        ids = [k[1] for k in top[: self.s.group_top]] + [e.id for e in leading]
        ids += [*loading, *c.statements]
        keys = [("episode", i) for i in dict.fromkeys(ids)] + [("fact", i) for i in fresh_facts]
        return [k for k in keys if k not in c.vectors and k not in c.asked_vectors]

    def vectors_for(
        self, c: Candidates, kind: Literal["episode", "fact"], ids: Sequence[str]
    ) -> None:
        """Vectors of ``ids`` that no read asked for yet (a fallback: the reads ask for all
        that the default settings compare; a memory waiting for its vector has none)."""
        keys = [(kind, i) for i in ids if (kind, i) not in c.vectors]
        keys = [k for k in keys if k not in c.asked_vectors]
        if not keys:
            return
        c.asked_vectors.update(keys)
        found = self.store.get_vectors(c.ns, kind, [i for _, i in keys])
        c.vectors.update({(kind, i): v for i, v in found.items()})

    def _naming(self, c: Candidates, ids: list[str]) -> set[frozenset[str]]:
        """Pairs of ``ids`` that both name something other than their speakers (two
        answers to one "which"/"who"/"where" question), from the store's mentions."""
        self._read_names(c, ids)
        named = [i for i in ids if c.mentions.get(i, set()) - c.speaking]
        return groups.naming_pairs(named)

    def _read_names(self, c: Candidates, ids: list[str]) -> None:
        """The mentions of ``ids`` and the entities of their speakers, read once a recall."""
        unread = [i for i in ids if i not in c.mentions]  # the judge read the leading ones
        for m in self.store.mentions_of(c.ns, unread) if unread else ():
            c.mentions[m.episode_id].add(m.entity_id)
        speakers = {e.speaker for i in ids if (e := c.episodes[i]).speaker} - c.speakers_read
        if speakers:
            c.speaking |= {e.id for e in self.store.find_entities(c.ns, sorted(speakers))}
            c.speakers_read |= speakers

    def judge(
        self,
        c: Candidates,
        query: str,
        at: datetime,
        score: dict[Key, float],
        k: int,
    ) -> Assessment:
        """Verdicts from the facts about what the query and the leading candidates name; a
        current fact that answers the query joins the candidates (memvault.recall.currency).
        Only the leading candidates (3k) are looked into: currency reorders what could reach
        the top, and reading the mentions of every candidate cost more than the rest."""
        s = self.s
        if not s.currency:
            return Assessment()
        leading = c.by_score(score, "episode")[: max(3 * k, 30)]
        episodes = [c.episodes[i] for _, i in leading if i in c.episodes]
        subjects = {f.subject_id for f in c.facts.values()} | {e.id for e in c.query_entities}
        speakers = sorted({e.speaker for e in episodes if e.speaker})
        named = self.store.named_read(
            c.ns, [e.id for e in episodes], speakers, sorted(subjects), s.currency_max_facts
        )
        for m in named.mentions:
            c.mentions[m.episode_id].add(m.entity_id)
        c.kinds.update({e.id: e.type for e in named.named})
        c.names.update({e.id: e.names() for e in named.named})
        c.speaking |= {e.id for e in named.speakers}
        c.speakers_read |= set(speakers)
        facts = named.facts
        found = assess(
            facts,
            at,
            query=query,
            named=c.named(),
            single_valued=self.single_valued,
            opposites=self.opposites,
            outdated_factor=s.outdated_factor,
            current_factor=s.current_factor,
            contested_factor=s.contested_factor,
            answer_factor=s.answer_factor,
        )
        fresh = [f for f in found.answers if ("fact", f.id) not in c.keys]
        for f in fresh:
            c.keys.setdefault(("fact", f.id), None)
            c.facts[f.id] = f
        self._episode_updates(c, query, at, score, episodes, found, [f.id for f in fresh])
        return found

    def _episode_updates(
        self,
        c: Candidates,
        query: str,
        at: datetime,
        score: dict[Key, float],
        leading: list[Episode],
        found: Assessment,
        fresh_facts: list[str],
    ) -> None:
        """Episode-level updates (memvault.recall.episode_updates) join the facts' verdicts:
        a demotion wins over a lift; the current end of a chain joins the candidates with the
        relevance of the best statement it replaced; a fact whose every source episode was
        replaced is outdated too (and answers nothing), though no newer fact was extracted."""
        s = self.s
        ranked = c.by_score(score, "fact")
        facts = [c.facts[i] for _, i in ranked if i in c.facts][: s.currency_facts_checked]
        facts += [f for f in found.answers if f not in facts]
        sources = {i for f in facts for i in f.source_episode_ids}
        stated = c.statements  # found by the candidates' read
        needed = sorted((sources | set(stated)) - set(c.episodes))
        spare = {i: c.spare[i] for i in needed if i in c.spare}
        ids = {e.id for e in leading}
        known = [*leading, *spare.values(), *(c.episodes[i] for i in stated if i in c.episodes)]
        follow = sorted({r.episode_id for e in known for r in e.replaced_by} - set(needed))
        wanted_vectors = self._vectors_wanted(c, score, leading, [*needed, *follow], fresh_facts)
        framing = s.group_frames and s.group_cosine > 0 and groups.asks_about_now(query)
        search = frame_search.plan(leading[: s.group_top] if framing else [], at)
        loaded = self.store.episodes_read(
            c.ns,
            [i for i in needed if i not in spare],
            follow,
            wanted_vectors,
            search.phrases,
            search.keeps,
        )
        c.framed.update(loaded.framed)
        c.vectors.update(loaded.vectors)
        c.asked_vectors.update(wanted_vectors)
        c.asked_vectors.update(
            ("episode", i) for i in [*loaded.episodes, *loaded.replacers, *loaded.framed]
        )
        c.episodes.update({i: e for i in needed if (e := spare.get(i) or loaded.episodes.get(i))})
        cosines(c, "fact", fresh_facts)
        judged_set = leading + [c.episodes[i] for i in sorted(sources - ids) if i in c.episodes]
        asked = asked_attributes(query)
        judged_set += [
            c.episodes[i]
            for i in stated
            if i in c.episodes
            and i not in ids | sources
            and asked & {st.attribute for st in statements(c.episodes[i].content)}
        ]
        pool = c.spare | loaded.episodes | loaded.replacers
        wanted = episode_updates.replacer_ids(judged_set, at, query) - set(c.episodes)
        missing = sorted(i for i in wanted if i not in pool)
        if missing:  # not expected: every link of what was judged was read on
            pool.update({e.id: e for e in self.store.get_episodes(c.ns, missing)})
        c.episodes.update({i: pool[i] for i in sorted(wanted) if i in pool})
        self.vectors_for(c, "episode", sorted(wanted))
        judged = episode_updates.assess(
            judged_set,
            c.episodes,
            at,
            query=query,
            judged_until=lambda: c.judged_until,
            factors=episode_updates.Factors(
                s.outdated_factor, s.current_factor, s.contested_factor
            ),
        )
        found.episode_answers |= judged.answers
        for rid, v in judged.verdicts.items():
            had = found.episodes.get(rid)
            if had is None or (v.factor < 1.0 and v.factor < had.factor):
                found.episodes[rid] = v
        for f in facts:
            said = [judged.verdicts.get(i) for i in f.source_episode_ids]
            demotions = [v for v in said if v is not None and v.factor < 1.0]
            if said and len(demotions) == len(said):
                worst = min(demotions, key=lambda v: v.factor)
                found.facts[f.id] = Verdict(worst.factor, f"its evidence: {worst.why}")
                found.answers = [a for a in found.answers if a.id != f.id]
        # what is current answers what the statement it replaced answered (and the statement
        # a question about the past asks for, what replaced it): it takes that relevance when
        # its own is lower, and joins the candidates when the search missed it
        said_by: dict[str, float] = defaultdict(float)  # a fact's relevance reaches its sources
        for f in facts:
            for i in f.source_episode_ids:
                said_by[i] = max(said_by[i], score.get(("fact", f.id), 0.0))
        joined = [i for i in {*judged.inherits, *judged.answers} if ("episode", i) not in c.keys]
        for i in judged.answers:
            c.keys.setdefault(("episode", i), None)
        for rid, replaced in judged.inherits.items():
            c.keys.setdefault(("episode", rid), None)
            inherited = max(max(score.get(("episode", i), 0.0), said_by[i]) for i in replaced)
            score[("episode", rid)] = max(score.get(("episode", rid), 0.0), inherited)
        cosines(c, "episode", joined)


def _holding_the_numbers_asked(c: Candidates, query: str, ids: list[str]) -> list[str]:
    """A question naming a number ("issue #14", "flight LH 1234") asks about what holds it:
    only statements holding it may stand for one another ("I patched issue #231" is no newer
    version of "I patched issue #14", however close their meanings)."""
    asked = {t for t in claim_tokens(query) if any(ch.isdigit() for ch in t)}
    if not asked:
        return ids
    return [i for i in ids if asked <= claim_tokens(c.episodes[i].content)]
