"""Facts about the people someone talks about, by rule: "My sister Joana lives in Porto",
"Rui moved to Braga", "Ana works at Helio Labs". The first-person rules
(memvault.ingest.rules) read only what the speaker says of themselves; these read the same
three single-valued things (where someone lives, who employs them) said of a named person in
the third person, so a friend's move supersedes their old city as the speaker's own does.

The subject is a capitalised name right before the verb (one or two words, "van"-style
particles inside), never a pronoun or a word that only opens the sentence ("She", "Today"),
and never the speaker (their own facts are the first-person rules'). The object is a named
place or organisation: its run of capitalised words (memvault.ingest.objects).
"""

from __future__ import annotations

import re

from memvault.ingest.objects import clean_object, name_run
from memvault.language.lexicon import common_word
from memvault.llm.prompts import ExtractedFact

_SUBJECT = r"(?P<subj>[A-Z][a-z][\w'’-]*(?:\s+(?:(?:van|von|de|da|del|di|du)\s+)?[A-Z][\w'’-]+)?)"
_OBJ = r"(?P<obj>[A-Z][^.,!?;:()\"]{0,80})"
_NOT_NAMES = frozenset(
    """
    she he they it we you i this that there here who what someone everyone nobody my our
    your his her their mom mum dad
    """.split()
)
# (pattern, predicate, statement template, confidence)
_RULES = (
    (rf"\b{_SUBJECT}\s+(?:still\s+|now\s+)?(?:lives|is living|has lived) in {_OBJ}", "lives_in",
     "{s} lives in {o}", 0.7),
    (rf"\b{_SUBJECT}\s+(?:just\s+|finally\s+)?(?:moved|relocated|has moved) to {_OBJ}",
     "lives_in", "{s} lives in {o}", 0.65),
    (rf"\b{_SUBJECT}\s+(?:still\s+|now\s+)?(?:works|is working) (?:at|for) {_OBJ}", "works_at",
     "{s} works at {o}", 0.7),
    (rf"\b{_SUBJECT}\s+(?:just\s+)?started (?:working |a new job )?at {_OBJ}", "works_at",
     "{s} works at {o}", 0.65),
)  # fmt: skip
_PATTERNS = tuple((re.compile(p), pred, tmpl, conf) for p, pred, tmpl, conf in _RULES)
_VERBS = re.compile(r"\b(?:lives|living|lived|moved|relocated|works|working|started)\b")


def _named(subject: str, text: str, at: int) -> bool:
    """A person's name, not a pronoun or a word capitalised only because it opens the
    sentence ("Today", "Everyone")."""
    first = subject.split()[0]
    if first.lower() in _NOT_NAMES:
        return False
    opens = at == 0 or text[:at].rstrip()[-1:] in {".", "!", "?", "\n", ""}
    return not (opens and common_word(first))


def facts_about_others(text: str, speaker: str | None) -> list[ExtractedFact]:
    """The third-person facts of one memory (none about the speaker: theirs are the
    first-person rules')."""
    out: list[ExtractedFact] = []
    if not _VERBS.search(text):
        return out
    seen: set[tuple[str, str, str]] = set()
    own = (speaker or "").strip().lower()
    for pattern, predicate, template, confidence in _PATTERNS:
        for m in pattern.finditer(text):
            subject, at = m.group("subj").strip(), m.start("subj")
            if not _named(subject, text, at) and " " in subject:  # "Yesterday Rui moved…"
                first = subject.split()[0]
                subject, at = subject[len(first) :].strip(), at + len(first) + 1
            if subject.lower() == own or not _named(subject, text, at):
                continue
            obj = clean_object(name_run(m.group("obj").strip()))
            key = (subject.lower(), predicate, obj.lower())
            if not obj or key in seen:
                continue
            seen.add(key)
            out.append(
                ExtractedFact(
                    subject=subject,
                    predicate=predicate,
                    object=obj,
                    statement=template.format(s=subject, o=obj),
                    confidence=confidence,
                    object_is_entity=True,
                )
            )
    return out
