"""The last step of recall: the fused relevance of every candidate becomes its composite
score (memvault.recall.scoring) at the time recall looks from, memories not visible then
(later, retired, snoozed; facts not valid) are left out, a current fact that answers the
question ranks first, and the best ``k`` become hits with their explanations. Pure."""

from __future__ import annotations

from datetime import datetime

from memvault.config import RecallSettings
from memvault.kg.model import Episode, Fact, episode_order, words_said
from memvault.language.text import clip
from memvault.recall.candidates import Candidates, Key
from memvault.recall.currency import Assessment
from memvault.recall.results import Hit
from memvault.recall.scoring import Factors, score_episode, score_fact


def rank(
    c: Candidates,
    score: dict[Key, float],
    at: datetime,
    verdicts: Assessment,
    k: int,
    s: RecallSettings,
) -> list[Hit]:
    """Every visible candidate scored, the best ``k`` returned as hits (only those get
    an explanation built: a recall looks at a few hundred candidates)."""
    best = max(score.values(), default=0.0)
    if best <= 0:
        return []
    scored: list[tuple[Key, Factors]] = []
    for key in c.keys:
        kind, rid = key
        relevance = score.get(key, 0.0) / best
        if kind == "episode":
            e = c.episodes.get(rid)
            if e is not None and _visible_episode(e, at):
                v = verdicts.episodes.get(rid)
                scored.append((key, score_episode(e, relevance, at, s, v)))
        else:
            f = c.facts.get(rid)
            if f is not None and _visible_fact(f, at, verdicts.then):
                v = verdicts.facts.get(rid)
                factors = score_fact(f, relevance, at, s, v)
                if verdicts.then is not None and not f.is_valid_at(at):
                    factors.currency_note = _true_then(f, verdicts.then, factors.currency_note)
                scored.append((key, factors))
    # the newest statement first, then the fact above it
    _answers_rank_first(scored, set(verdicts.episode_answers), "episode", s.current_factor)
    _answers_rank_first(scored, {f.id for f in verdicts.answers}, "fact", s.answer_factor)
    _quotes_rank_first(scored, c.signal["phrase"])
    scored.sort(key=lambda item: (-item[1].score, c.order(item[0])))
    repeats = _fold_repeats(scored, c) if s.fold_repeats else {}
    if s.session_cap:
        scored = _spread(scored, c, s.session_cap)
    # the newest of a group takes the group's best place among the leading ``group_top``
    # (the memories grouped come from there), whatever ``k`` is: the first ten are the same
    # whether ten or thirty were asked for
    window = max(k, s.group_top) if verdicts.newest else k
    top = _newest_first(c, scored[:window], verdicts.newest, verdicts.then)[:k]
    top = _each_thing_shown(top, scored, c.signal["parts"], k, c)
    return [_hit(c, key, f, repeats.get(key[1], [])) for key, f in top]


def _each_thing_shown(
    top: list[tuple[Key, Factors]],
    scored: list[tuple[Key, Factors]],
    marked: dict[Key, float],
    k: int,
    c: Candidates,
) -> list[tuple[Key, Factors]]:
    """The memories closest to each of two things asked about (``marked``: fusion.parts) that
    are not among the first ``_SHOWN_WITHIN`` places take places among those, best scored
    first, never one another's. Each takes the lowest place held by a memory whose session
    holds a better place ("Quick update, I finally painted the nursery." keeps its place when
    three replies about the apple tree share one session), else the lowest; the memories they
    displace follow them. The first ten are the same whether ten or thirty were asked for: a
    question about two things is shown what tells of each."""
    within = min(k, _SHOWN_WITHIN)
    head, tail = list(top[:within]), list(top[within:])
    have = {key for key, _ in head}
    for item in (it for it in scored if it[0] in marked and it[0] not in have):
        free = [i for i, (key, _) in enumerate(head) if key not in marked]
        if not free:
            break
        sessions = [_session(c, key) for key, _ in head]
        again = [i for i in free if sessions[i] in sessions[:i]]
        tail.insert(0, head.pop((again or free)[-1]))
        head.append(item)
    shown = {key for key, _ in head}
    return (head + [item for item in tail if item[0] not in shown])[:k]


def _session(c: Candidates, key: Key) -> str:
    """The session a memory was said in; a memory outside any is a session of its own."""
    e = c.episodes.get(key[1]) if key[0] == "episode" else None
    return (e.session_id if e is not None else None) or f"{key[0]}:{key[1]}"


_SHOWN_WITHIN = 10


def _fold_repeats(scored: list[tuple[Key, Factors]], c: Candidates) -> dict[str, list[str]]:
    """The same words from the same speaker at several times ("What should I pack for a
    rainy city break?" asked seven times) take one place, the best scored's: its hit speaks
    for the others (in its sources and ``explanation.repeats``: "how many times did I …"
    stays answerable), and the places they held go to other memories. ``scored`` is
    sorted; it is changed in place. Returns: kept id → folded ids."""
    first: dict[tuple[str, str], str] = {}
    folded: dict[str, list[str]] = {}
    kept: list[tuple[Key, Factors]] = []
    for item in scored:
        (kind, rid), _ = item
        e = c.episodes.get(rid) if kind == "episode" else None
        if e is None:
            kept.append(item)
            continue
        said = words_said(e)
        if said in first:
            folded.setdefault(first[said], []).append(rid)
            continue
        first[said] = rid
        kept.append(item)
    scored[:] = kept
    return folded


def _newest_first(
    c: Candidates,
    top: list[tuple[Key, Factors]],
    newest: dict[str, list[str]],
    then: datetime | None = None,
) -> list[tuple[Key, Factors]]:
    """Inside each group of statements meaning the same thing (memvault.recall.groups), the
    newest takes the best of the group's places in ``top``, the next newest the next, and so
    on (a member of lower importance stays below one of higher): the memories in ``top``
    stay the same, only their order changes. A statement is as new as the first time its
    speaker said those words: a repeat tells nothing new (the dream's duplicate merge keeps
    the first saying too), so "We should eat out this weekend", said again in September,
    does not move above September's "I decided to eat everything again". A question about
    a past time (``then``) is answered as of then: the newest said by then first, what was
    said after it below them all (the earliest first: it was not yet true then)."""
    if not newest:
        return top
    place = {key: n for n, (key, _) in enumerate(top)}
    first = _first_said(c)
    for head, others in newest.items():
        members = [m for m in (head, *others) if ("episode", m) in place]
        if len(members) < 2:
            continue
        slots = sorted(place[("episode", m)] for m in members)
        # a judgment of worth stands (feedback "down", a stale note's maintenance): a member
        # of lower importance does not move above one of higher; between equals, newest first
        ordered = sorted(
            members,
            key=lambda m: (
                c.episodes[m].importance,
                first[words_said(c.episodes[m])],
                episode_order(c.episodes[m]),
            ),
            reverse=True,
        )
        if then is not None:
            ordered = _as_of(ordered, then, first, c)
        moved = {("episode", m): slot for m, slot in zip(ordered, slots, strict=True)}
        scores = {slot: top[slot][1].score for slot in slots}
        ended = [m for m in members if m in c.endings]
        n = len(members) - 1
        if ended:  # said whether or not it moved: the ending took their relevance
            end = clip(" ".join(c.episodes[ended[0]].content.split()), 60)
            earlier = (
                f"what {n} earlier memories name ended: it leads them"
                if n > 1
                else "what an earlier memory names ended: it leads it"
            )
        for key, slot in moved.items():
            f = top[place[key]][1]
            if ended:
                why = f"says that {earlier}" if key[1] in c.endings else f'ended later: "{end}"'
            elif key[1] in c.frame_joined:  # said whether or not it moved: found by the words
                why = "said in the words of an earlier statement, for another value: newest first"
            elif place[key] != slot and then is not None:
                why = (
                    f"{len(members)} statements mean the same thing: the newest said by "
                    f"{then.date().isoformat()} first (the question asks about then)"
                )
            elif place[key] != slot:
                why = f"{len(members)} statements mean the same thing: newest first"
            else:
                continue
            f.currency_note = f"{f.currency_note + '; ' if f.currency_note else ''}{why}"
            f.score = scores[slot]
        for key, slot in moved.items():
            place[key] = slot
    return sorted(top, key=lambda item: place[item[0]])


def _as_of(
    ordered: list[str], then: datetime, first: dict[tuple[str, str], tuple], c: Candidates
) -> list[str]:
    """``ordered`` (newest first) as of ``then``: those first said by then, the ones naming
    something (a value: "Long day at Kestrel Pay again") before the ones that name nothing
    ("Work had way too many meetings again", which a loose group holds too), each newest
    first; then the rest, earliest first. A judgment of worth still stands above all."""
    said = {m: first[words_said(c.episodes[m])][0] for m in ordered}
    by_then = [m for m in ordered if said[m] <= then]
    by_then.sort(key=lambda m: bool(c.mentions.get(m, set()) - c.speaking), reverse=True)
    later = [m for m in reversed(ordered) if said[m] > then]
    return sorted(by_then + later, key=lambda m: c.episodes[m].importance, reverse=True)


def _first_said(c: Candidates) -> dict[tuple[str, str], tuple[datetime, str, int, str, str]]:
    """The words of each candidate episode (with its speaker) → the order of the first
    candidate that said them."""
    first: dict[tuple[str, str], tuple[datetime, str, int, str, str]] = {}
    for e in c.episodes.values():
        order = episode_order(e)
        said = words_said(e)
        if said not in first or order < first[said]:
            first[said] = order
    return first


def _quotes_rank_first(scored: list[tuple[Key, Factors]], runs: dict[Key, float]) -> None:
    """A memory that holds a run of the query's words verbatim (the user quotes what was
    said) ranks above every other, the longest run first; between equal runs, their own
    scores decide."""
    quoted = [(key, f) for key, f in scored if key in runs]
    if not quoted:
        return
    top = max(f.score for _, f in scored) or 1.0
    for key, f in quoted:
        f.quoted = int(runs[key])
        f.score = top * (1.3 + 0.1 * f.quoted + 0.05 * min(f.score / top, 1.0))


def _spread(
    scored: list[tuple[Key, Factors]], c: Candidates, cap: int
) -> list[tuple[Key, Factors]]:
    """At most ``cap`` memories of one session keep their place; a session's further ones
    follow after every other memory, in their order (nothing is dropped)."""
    seen: dict[str, int] = {}
    kept: list[tuple[Key, Factors]] = []
    later: list[tuple[Key, Factors]] = []
    for item in scored:
        session = _session(c, item[0])  # a memory outside any session is one of its own
        seen[session] = seen.get(session, 0) + 1
        (later if seen[session] > cap else kept).append(item)
    return kept + later


def _hit(c: Candidates, key: Key, factors: Factors, repeats: list[str]) -> Hit:
    kind, rid = key
    if kind == "episode":
        e = c.episodes[rid]
        return Hit(
            kind="episode",
            id=rid,
            text=e.content,
            score=factors.score,
            # a merged episode speaks for the near-duplicates it absorbed, a folded one for
            # its repeats (how often something was said stays countable)
            source_episode_ids=[rid, *e.metadata.get("merged_from", []), *repeats],
            episode=e,
            tier=e.tier,
            digest=(e.metadata.get("digest") or {}).get("level"),
            explanation=c.explain(key, factors, repeats),
        )
    f = c.facts[rid]
    return Hit(
        kind="fact",
        id=rid,
        text=f.statement,
        score=factors.score,
        source_episode_ids=list(f.source_episode_ids),
        fact=f,
        explanation=c.explain(key, factors),
    )


def _answers_rank_first(
    scored: list[tuple[Key, Factors]], answers: set[str], kind: str, factor: float
) -> None:
    """What answers the question ranks above every other memory: a current fact whose
    subject the query names and whose predicate it asks about (× ``answer_factor``: its own
    confidence decays since it was last confirmed, but it is still what the vault holds
    true); below it, the newest statement of the asked attribute (× ``current_factor``),
    which may share no word with the question ("How do I get to work now?" → "My commute
    now is the 42 bus")."""
    best = max((f.score for (k, rid), f in scored if k != kind or rid not in answers), default=0)
    for (k, rid), f in scored:
        if k == kind and rid in answers and best * factor > f.score:
            f.score = best * factor
            f.currency_note = f"{f.currency_note}; ranked first (best other × {factor:g})"


def _visible_episode(e: Episode, at: datetime) -> bool:
    if e.expired_at is not None or e.occurred_at > at:
        return False
    return e.cooldown_until is None or e.cooldown_until <= at


def _true_then(f: Fact, then: datetime, note: str | None) -> str:
    """A fact shown because it was true at the time the question asks about: never taken
    for the current situation."""
    ended = f.invalid_at.date().isoformat() if f.invalid_at else "since"
    said = f"true on {then.date().isoformat()}, the time asked about; no longer: ended {ended}"
    return f"{note}; {said}" if note else said


def _visible_fact(f: Fact, at: datetime, then: datetime | None = None) -> bool:
    """Valid at ``at`` or, for a question about a past time, then (a fact replaced since
    answers "Where did I live in March?": what the vault holds was true then)."""
    if not (f.is_valid_at(at) or (then is not None and f.is_valid_at(then))):
        return False
    return f.cooldown_until is None or f.cooldown_until <= at
