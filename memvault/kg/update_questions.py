"""What a question asks of the update rules (memvault.kg.updates): the attributes it is
about, by its words, and the phrases that use an attribute's word without asking about it.
Pure: no I/O."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from memvault.kg.declared import asked_in
from memvault.kg.updates import ASKED_STEMS, is_declared, same_attribute, statements
from memvault.language.stem import stem

_WORD = re.compile(r"[a-z]+")
# getting to work asks how, not for whom: "how do I get to work now?" is about a commute
_TO_WORK = re.compile(
    r"\b(?:get|gets|getting|go|goes|going|drive|driving|ride|riding|walk|walking|cycle|"
    r"cycling|bike|biking|commute|commuting|travel\w*|head|heading) (?:in )?to work\b"
    r"(?! (?:at|for)\b)",
    re.IGNORECASE,
)
# a person who takes part beside the subject is named, not asked about: "what did Ana and
# her boyfriend cook?", "Ana went fishing with her partner" ask about the cooking and the
# fishing; "who is Ana's boyfriend?" and "is Ana still with her partner?" do ask
_COMPANION = re.compile(
    r"(?<!still )\b(?:and|with|&) (?:(?:his|her|their|my|your|our) )?(?:new |current )?"
    r"(?:partner|girlfriend|boyfriend|wife|husband|spouse|manager|boss)s?\b"
    r"(?! (?:now|these days|anymore|any more)\b)",
    re.IGNORECASE,
)


def asking_words(query: str) -> str:
    """The question without phrases that use an attribute's word without asking about it
    ("how do I get to work?" asks about a commute, not an employer; "what did Ana and her
    partner cook?" about a meal, not who the partner is; "which group is Aiko in at work?"
    about a team, not an employer); every reader of a question's attributes or predicates
    starts from this."""
    return _AT_WORK.sub(" ", _COMPANION.sub(" ", _TO_WORK.sub(" ", query)))


# "at work", "at home" say where, not for whom or which home: "which group is she in at
# work?", "what happened at work?", "what animals does he have at home?"
_AT_WORK = re.compile(r"\b(?:at|from|after|before) (?:work|home)\b", re.IGNORECASE)


def asked_attributes(
    query: str, extra: Sequence[str] = (), declared: Sequence[str] = ()
) -> set[str]:
    """The attributes a question is about, by its words (``extra``: attribute names a model
    or a link gave, matched by any of their words; ``declared``: the things memories
    declared values of, asked when the question holds every word of one's name)."""
    stems = {stem(w) for w in _WORD.findall(asking_words(query).lower())}
    found = {a for a, words in ASKED_STEMS.items() if stems & words}
    if _TO_WORK.search(query):
        found.add("commute")
    for name in extra:
        if {stem(w) for w in _WORD.findall(name.lower())} & stems:
            found.add(name)
    found.update(name for name in declared if is_declared(name) and asked_in(name, stems))
    return found


def among(attribute: str, asked: set[str]) -> bool:
    """Is ``attribute`` one of the ``asked`` (a declared thing: under any of its names)."""
    return attribute in asked or (
        is_declared(attribute) and any(same_attribute(attribute, a) for a in asked)
    )


def declared_names(texts: Iterable[str]) -> list[str]:
    """The things ``texts`` declare values of (for :func:`asked_attributes`)."""
    return sorted(
        {st.attribute for t in texts for st in statements(t) if is_declared(st.attribute)}
    )
