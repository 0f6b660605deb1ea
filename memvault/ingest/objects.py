"""What a fact's object is, read from the words after a rule's cue: at most six words, no
pronoun ("now I hate it" names nothing), and a named object only its run of capitalised words
(with the particles names are made with), whatever follows it."""

from __future__ import annotations

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
        if w[:1].isupper():
            end += 1
        elif w.lower() in _PARTICLE_WORDS and end + 1 < len(words) and words[end + 1][:1].isupper():
            end += 2
        else:
            break
    return " ".join(words[:end])


def clean_object(raw: str) -> str:
    words = raw.strip().split()
    if len(words) > 1 and words[0].lower() == "to":
        words = words[1:]
    if not words or len(words) > 6:
        return ""
    obj = " ".join(words).strip(" '\"’")
    if obj.lower() in _PRONOUNS:
        return ""
    return obj if any(c.isalnum() for c in obj) else ""
