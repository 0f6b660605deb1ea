"""What a fact's object is, read from the words after a rule's cue: at most six words, no
pronoun ("now I hate it" names nothing), and a named object only its run of capitalised words
(with the particles names are made with), whatever follows it."""

from __future__ import annotations

import re

from memvault.language.kinds import kind_of

# a pronoun stands for something said elsewhere: "now I hate it" names no object
_PRONOUNS = frozenset(
    """
    it this that these those them him her you me us one everything anything something
    nothing everyone anyone someone
    """.split()
)


_PARTICLE_WORDS = frozenset("of the de da das dos del della di du van von der den la le".split())


def name_run(obj: str) -> str:
    """A named object is its run of capitalised words (the particles names are made with
    inside it): "Nantes at the moment" → "Nantes", "Helio Labs as a data engineer" →
    "Helio Labs"; one that names nothing capitalised is kept as said ("the local bakery")."""
    words = obj.split()
    lead = 1 if len(words) > 1 and words[0].lower() in {"the", "a", "an"} else 0
    if not words[lead:] or not words[lead][:1].isupper():
        return obj
    end = lead + 1
    while end < len(words):
        w = words[end]
        if w == "I" or w.startswith(("I'", "I’")):  # "Paris I learned French": the next clause
            break
        if w[:1].isupper():
            end += 1
        elif w.lower() in _PARTICLE_WORDS and end + 1 < len(words) and words[end + 1][:1].isupper():
            end += 2
        else:
            break
    return " ".join(words[:end])


def clean_object(raw: str, *, named: bool = False) -> str:
    """The object a rule read, or "" when it names nothing: more than six words, a pronoun.
    ``named``: its run of capitalised words first ("Lisbon at the start of the year")."""
    words = raw.strip().split()
    if len(words) > 1 and words[0].lower() == "to":
        words = words[1:]
    if named:
        words = name_run(" ".join(words)).split()
    if not words or len(words) > 6:
        return ""
    obj = " ".join(words).strip(" '\"’").lstrip("-–—:;,. ")  # "I love - the sound of …"
    if not obj:
        return ""
    # a pronoun, or one that leads ("I love them for that"), or "to" alone ("I love to.")
    if obj.lower() in _PRONOUNS or obj.lower() == "to" or obj.split()[0].lower() in _PRONOUNS:
        return ""
    # code or a template's placeholder ("{self.name}", "[Your Name]", "<name>"), or a list
    # marker ("#8 please…"): no object a person says of themself
    if not obj[0].isalnum() or any(c in _NOT_IN_OBJECTS for c in obj):
        return ""
    return obj


_NOT_IN_OBJECTS = frozenset("[]{}<>|\\`$=")


_AT_A_NAME = re.compile(r"\s+at\s+(?:the\s+)?[A-Z]")


def moved_home(obj: str, after: str) -> bool:
    """Whether "moved to ``obj``" (``after``: the words that follow it) says where someone
    lives: a name that is no person, organisation or work ("Harrogate", "the Netherlands"),
    not part of something named after it ("the ICU at Leeds General Infirmary": a ward).
    One moves to a team, a shift or a department too ("the night shift", "marketing"): a
    move to what no capital names is no new home by rule (the episode still says it)."""
    words = obj.split()
    lead = 1 if len(words) > 1 and words[0].lower() in {"the", "a", "an"} else 0
    if not words[lead:] or not words[lead][:1].isupper() or _AT_A_NAME.match(after):
        return False
    return kind_of(" ".join(words[lead:])) not in {"person", "organization", "thing"}
