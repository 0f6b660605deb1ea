"""Facts of the values a person declares about a thing of theirs (memvault.kg.declared): "My
phone number is 555-0142" is the fact ``own_phone_number`` = 555-0142 of its speaker, one value
at a time (the ontology's ``own_*``: single-valued), so a newer declaration supersedes it in
the dream with its ``valid_at`` / ``invalid_at`` and nothing is erased. The rules' own
attributes (a name, a birthday, a manager, a favourite…) are theirs, not declared again; a
pasted document's "Our address is …" is no one's (a text over 600 characters declares
nothing); neither does an assistant (the caller's rule). Pure."""

from __future__ import annotations

import re

from memvault.kg.declared import declared
from memvault.language.mood import asserted
from memvault.llm.prompts import ExtractedFact

PREFIX = "own_"
_PASTED = 600  # as memvault.kg.updates: a longer text is more than someone telling their news
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n")  # "maya@kestrel.io" is no sentence's end
# the things the rules already read under their own predicate (memvault.ingest.rules)
_RULES_OWN = frozenset(
    """
    name birthday age manager boss wife husband partner girlfriend boyfriend sister brother
    mom mother dad father son daughter doctor therapist teacher mentor roommate dog cat pet
    team diet job employer
    """.split()
)


_AFTER = re.compile(  # the value's clause ends: a stop, "now", or a new clause ("since I…")
    r"\s*(?:$|[.,;!?)]|(?:now|these days|again|from now on)\b"
    r"|(?:since|because|after|when|as|so|and|but)\s+(?:my|our|I|I'm|I've|we|we're)\b)",
    re.IGNORECASE,
)


def _stands_alone(sentence: str, value: str) -> bool:
    """A fact needs the value said whole: its clause ends after it ("is 555-0199, text me";
    not "is 12 years old", "is 100% legal"), and after a colon it holds a digit or an
    address ("My text: At this location…" opens a paste, it declares nothing)."""
    at = sentence.find(value)
    if at < 0 or not _AFTER.match(sentence, at + len(value)):
        return False
    colon = sentence[:at].rstrip().endswith(":")
    return not colon or "@" in value or any(ch.isdigit() for ch in value)


def declared_facts(text: str, subject: str, taken: set[str]) -> list[ExtractedFact]:
    """One fact per value ``text`` declares of a thing of its speaker's (``subject``), unless
    the rules read that value already (``taken``: their objects, lower-cased)."""
    if len(text) > _PASTED:
        return []
    out: list[ExtractedFact] = []
    for sentence in _SENTENCES.split(text):
        for thing, value in declared(sentence):
            if thing in _RULES_OWN or thing.startswith(("favorite", "favourite")):
                continue
            if value.lower() in taken or not asserted(sentence, sentence.lower().find(thing)):
                continue
            if not _stands_alone(sentence, value):
                continue
            predicate = PREFIX + re.sub(r"[^a-z0-9]+", "_", thing).strip("_")
            if any(f.predicate == predicate for f in out):
                continue  # one value of a thing per memory: the first said
            taken.add(value.lower())
            out.append(
                ExtractedFact(
                    subject=subject,
                    predicate=predicate,
                    object=value,
                    statement=f"{subject}'s {thing} is {value}",
                    confidence=0.75,
                    object_is_entity=False,
                )
            )
    return out
