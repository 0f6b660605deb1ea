"""The facts an episode-level update makes outdated, superseded with it.

When the ``updates`` stage links an older statement to a newer one ("I work at Helio Labs"
→ "I left Helio Labs and joined Quanta Systems": employer, before Helio Labs, after Quanta
Systems), a fact written from the older words ("Lea works_at Helio Labs") would otherwise
stay valid now, and ``facts`` would show the old situation as the current one. The link says
the value changed, so the fact naming the old value ends when the newer statement was made
(``invalid_at``: kept in the history, answerable ``as_of`` before then), and the new value
becomes a fact of the same predicate from the newer statement, valid from then (unless a
live fact already holds it). A fact is only touched when it is about the speaker, names the
old value, and every memory it stands on was said before the change: a later restatement of
the old value ("back at Helio Labs") keeps it. Proposed in the link's change group, so a
human who rejects the link rejects these with it; undone like any other change.
"""

from __future__ import annotations

from collections import Counter

from memvault.changes.workspace import Workspace
from memvault.kg.model import Episode, Fact, Replacement, new_id, normalize_name

OP = "updates.supersede_fact"


def _words(text: str) -> str:
    return f" {normalize_name(text)} "


def _names(value: str, said: str) -> bool:
    """Whether ``value`` (a fact's object) is the value the link names: the same words, or
    whole words of a longer description ("Helio Labs" in "Helio Labs, as a data engineer")."""
    v = _words(value)
    return bool(v.strip()) and v in _words(said)


def _outdated(ws: Workspace, speaker: str, newer: Episode, link: Replacement) -> list[Fact]:
    out = []
    for f in ws.live_facts():
        if normalize_name(f.subject) != speaker or not _names(f.object, link.before):
            continue
        if f.valid_at >= newer.occurred_at or _names(f.object, link.after):
            continue
        sources = [ws.episodes.get(i) for i in f.source_episode_ids]
        if any(e is not None and e.occurred_at >= newer.occurred_at for e in sources):
            continue  # said again at or after the change: it still stands
        out.append(f)
    return out


def supersede_stated_facts(
    ws: Workspace, newer: Episode, link: Replacement, *, certainty: float, group: str
) -> Counter[str]:
    """Propose the ends (and the new values) of the facts ``link`` makes outdated."""
    counts: Counter[str] = Counter()
    speaker = normalize_name(newer.speaker or "")
    if not speaker or not link.before.strip():
        return counts
    when = newer.occurred_at.date().isoformat()
    for old in _outdated(ws, speaker, newer, link):
        ws.update(
            old,
            OP,
            f"{newer.speaker}'s {link.attribute} changed from '{link.before}' to "
            f"'{link.after}' on {when} ({newer.id})",
            certainty=certainty,
            impact="medium",
            group=group,
            invalid_at=newer.occurred_at,
        )
        counts["facts_superseded"] += 1
        after = " ".join(link.after.split())
        held = any(
            f.subject_id == old.subject_id
            and f.predicate == old.predicate
            and normalize_name(f.object) == normalize_name(after)
            for f in ws.live_facts()
        )
        if not after or held:
            continue
        entity = next(
            (
                e
                for e in ws.entities.values()
                if normalize_name(after) in {normalize_name(n) for n in e.names()}
            ),
            None,
        )
        fact = Fact(
            id=new_id(),
            namespace=old.namespace,
            subject_id=old.subject_id,
            subject=old.subject,
            predicate=old.predicate,
            object=after,
            object_id=entity.id if entity else None,
            statement=f"{old.subject} {old.predicate.replace('_', ' ')} {after}",
            confidence=min(old.confidence, certainty),
            importance=old.importance,
            valid_at=newer.occurred_at,
            created_at=ws.now,
            source_episode_ids=[newer.id],
            source_session_ids=[newer.session_id] if newer.session_id else [],
        )
        ws.create(
            fact,
            OP,
            f"supersedes '{old.statement}' ({old.id}): said on {when} ({newer.id})",
            certainty=certainty,
            impact="medium",
            group=group,
        )
        counts["facts_added"] += 1
    return counts
