"""Episode-level updates: a newer statement by the same speaker about the same attribute of
their own life ("we finally moved to Porto") replaces an older one ("I live in Berlin"), even
when no single-valued fact was extracted from either.

The offline rules read a small set of attributes a person has one value of at a time —
where they live, who employs them, their team, manager, school, diet, partner and how they
get to work — each from cue phrasings and a value pattern (a capitalised name after "in / to
/ from" for a city; a diet word after "I'm / go / became"; a way of travelling, named the
same however it is said: "the 42 bus" and "by bus" are both ``bus``). A statement is about
the speaker only when no third person ("my sister", "she") is its subject. Two statements of
one attribute with different values are an update, older → newer, unless the newer says it
adds rather than replaces ("also", "too", "as well", "another"). Restating the same value
corroborates and links nothing. What the rules cannot read is left to a configured model (the
dream's ``updates`` stage sends it the pairs the embedder finds close); nothing here knows
any dataset.

:func:`chains` turns a speaker's statements into links (each statement → the first later
statement of the attribute with another value); which attributes a question is about, so an
update only reorders memories about what was asked, is memvault.kg.update_questions'.
Pure: no I/O.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from memvault.kg.declared import declared, head, same_thing
from memvault.language.mood import asserted
from memvault.language.stem import stem
from memvault.language.text import join_abbreviations

_NAME = r"((?:[A-Z][\w'&.-]*)(?:\s+(?:[A-Z][\w'&.-]*|of|de|du|la|le|van|von|del))*)"
_PERSON = r"([A-Z][a-z][\w'-]*)"
_DIETS = (
    r"(vegetarian|vegan|pescatarian|flexitarian|gluten-free|dairy-free|lactose-free|keto|"
    r"paleo|halal|kosher|raw vegan|plant-based)"
)
_SELF = (
    r"(?:I'm|I am|we're|we are|I've been|we've been|go|going|gone|went|became|become|"
    r"turned|stay|staying|eat|eating|now)"
)

# ways of getting to work, each named once however it is said (a restatement is not a change)
_MODES = {
    "bus": "bus", "buses": "bus", "coach": "bus",
    "train": "train", "trains": "train", "rail": "train",
    "tram": "tram", "trams": "tram", "streetcar": "tram",
    "metro": "metro", "subway": "metro", "underground": "metro", "tube": "metro",
    "bike": "bike", "bicycle": "bike", "biking": "bike", "cycle": "bike", "cycling": "bike",
    "cycles": "bike", "ride my bike": "bike",
    "car": "car", "drive": "car", "drives": "car", "driving": "car",
    "walk": "walk", "walks": "walk", "walking": "walk", "on foot": "walk",
    "carpool": "carpool", "carpooling": "carpool", "car pool": "carpool", "rideshare": "carpool",
    "scooter": "scooter", "ferry": "ferry", "motorbike": "motorbike", "motorcycle": "motorbike",
}  # fmt: skip
# a mode named as what was left behind is not the value: "switched from the bus to cycling"
_MODE = (
    r"(?<!from )(?<!from the )(?<!instead of )(?<!no more )(?<!stopped )\b("
    + "|".join(sorted(map(re.escape, _MODES), key=len, reverse=True))
    + r")\b"
)

# attribute → (cue that must occur, value patterns: the first group is the value)
_RULES: dict[str, tuple[re.Pattern[str], tuple[re.Pattern[str], ...]]] = {
    "residence": (
        re.compile(
            r"\b(live|living|lived|moved|moving|relocat\w*|based|settled|flat|apartment|"
            r"house|home|resid\w*)\b",
            re.IGNORECASE,
        ),
        (
            re.compile(r"\b(?:in|to|into)\s+" + _NAME),
            re.compile(r"(?<!moved )(?<!away )(?<!out )\bfrom\s+" + _NAME),  # "writing from X"
        ),
    ),
    "employer": (
        re.compile(
            r"\b(work|working|job|jobs|started|joined|hired|contract|first day|employer|"
            r"company|offer|position|role|quit|resigned)\b",
            re.IGNORECASE,
        ),
        (
            re.compile(r"\b(?:at|for|joined|joining)\s+(?:the\s+)?" + _NAME),
            re.compile(r"\b(?:contract|signed|offer|job|position|role) with\s+" + _NAME),
            re.compile(
                r"\b(?:joined|joining|at|for|with) an? [\w -]{0,30}?\b(?:called|named) " + _NAME
            ),
        ),
    ),
    "team": (
        re.compile(r"\b(team|squad)\b", re.IGNORECASE),
        (
            re.compile(r"\bthe ([a-z][a-z-]*(?: [a-z][a-z-]*)?) (?:team|squad)\b"),
            re.compile(r"\b(?:team|squad) is (?:now )?(?:the )?([a-z][a-z-]*(?: [a-z][a-z-]*)?)"),
        ),
    ),
    "manager": (
        re.compile(r"\b(manager|boss|report to|reporting to)\b", re.IGNORECASE),
        (
            re.compile(r"\b(?i:my) (?:new )?(?:manager|boss|lead) is (?:now )?" + _PERSON),
            re.compile(r"\b(?:report|reporting) to " + _PERSON),
        ),
    ),
    "school": (
        re.compile(r"\b(study|studying|enrolled|student|degree|university|college)\b", re.I),
        (re.compile(r"\b(?:at|enrolled in|admitted to|accepted (?:at|to|into))\s+" + _NAME),),
    ),
    "diet": (
        re.compile(_DIETS + r"|\beat(?:ing)? (?:meat|everything|anything)\b", re.IGNORECASE),
        (
            re.compile(
                r"\b"
                + _SELF
                + r"\s+(?:fully |now |strictly |mostly |a |an |going |to go )?"
                + _DIETS,
                re.IGNORECASE,
            ),
            re.compile(r"\beat(?:ing)? ((?:meat|everything|anything)) again\b", re.IGNORECASE),
        ),
    ),
    "partner": (
        re.compile(
            r"\b(partner|girlfriend|boyfriend|wife|husband|fianc\w*|spouse|seeing|dating|"
            r"married|engaged|together|we met|met at|met on)\b",
            re.IGNORECASE,
        ),
        (
            re.compile(
                r"\b(?i:my) (?:new )?(?:partner|girlfriend|boyfriend|wife|husband|fianc\w*|"
                r"spouse),? " + _PERSON
            ),
            re.compile(r"\b(?:seeing|dating|married to|engaged to|marrying)\s+" + _PERSON),
            re.compile(r"\bI'm (?:with|together with) " + _PERSON + r"\b(?! (?:at|in|on)\b)"),
            re.compile(
                _PERSON + r" and I (?:moved in together|got (?:married|engaged)|are "
                r"(?:dating|together|engaged))"
            ),
        ),
    ),
    "commute": (
        re.compile(
            r"\b(commute|commuting|to work\b(?! (?:at|for)\b)|to the office|into (?:the )?office|"
            r"into work|carpool\w*)",
            re.IGNORECASE,
        ),
        (re.compile(_MODE, re.IGNORECASE),),
    ),
}

# leaving a value without naming the next one: "I quit Siemens", "we moved out of Vienna"
_LEFT: dict[str, re.Pattern[str]] = {
    "residence": re.compile(r"\bmoved (?:away from|out of)\s+" + _NAME),
    "employer": re.compile(r"\b(?:quit|left|resigned from)\s+(?:my job at\s+)?" + _NAME),
}

# the words a question about each attribute uses (stems are compared, see ``_stem``)
QUESTION_WORDS: dict[str, tuple[str, ...]] = {
    "residence": ("live", "living", "home", "city", "based", "reside", "address", "move", "town"),
    "employer": ("work", "job", "employer", "company", "employed", "workplace"),
    "team": ("team", "squad"),
    "manager": ("manager", "boss", "report"),
    "school": ("school", "study", "university", "college", "student"),
    "diet": ("diet", "eat", "vegetarian", "vegan", "food", "meat"),
    "partner": (
        "partner",
        "girlfriend",
        "boyfriend",
        "wife",
        "husband",
        "spouse",
        "dating",
        "seeing",
        "relationship",
        "married",
    ),
    "commute": ("commute", "commuting"),  # and "get / go / drive … to work" (``_TO_WORK``)
}

# words a statement of each attribute tends to use: to look for such statements beyond what
# the question's own words found (a question says "work", a statement "signed the contract")
STATEMENT_WORDS: dict[str, tuple[str, ...]] = {
    "residence": ("live", "moved", "relocated", "based", "settled", "flat", "apartment", "home"),
    "employer": ("work", "job", "started", "joined", "hired", "contract", "company", "day"),
    "team": ("team", "squad"),
    "manager": ("manager", "boss", "report"),
    "school": ("study", "studying", "university", "college", "enrolled", "student"),
    "diet": ("vegetarian", "vegan", "pescatarian", "diet", "eating", "meat", "gluten"),
    "partner": ("partner", "girlfriend", "boyfriend", "seeing", "dating", "together", "met"),
    "commute": ("commute", "bus", "train", "tram", "metro", "cycling", "bike", "drive", "walk"),
}

# the newer statement adds a value rather than replacing one
_ADDS = re.compile(r"\b(also|too|as well|another|second|in addition)\b", re.IGNORECASE)
# someone else is the subject: "my sister moved to Rome"; "she lives in Oslo" (but "they
# moved me to the search team" is about the speaker)
_OTHER = re.compile(
    r"\b(?:my|our|his|her|their|your) (?:sister|brother|mother|mom|mum|father|dad|parents|"
    r"friend|son|daughter|kids?|colleague|coworker|neighbou?r|cousin|aunt|uncle|grand\w+|"
    r"boss|manager|roommate|flatmate)\b",
    re.IGNORECASE,
)
_THIRD = re.compile(r"\b(he|she|they|he's|she's|they're)\b", re.IGNORECASE)
_FIRST = re.compile(r"\b(I|I'm|I've|me|my|we|we're|us|our)\b", re.IGNORECASE)
_NOT_VALUES = {
    "I",
    "I'm",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "The",
    "A",
    "My",
    "Our",
    "We",
    "It",
    "This",
    "That",
    "Today",
}


@dataclass(frozen=True)
class Statement:
    attribute: str
    value: str


@dataclass(frozen=True)
class Said:
    """One episode, as the rules see it."""

    id: str
    speaker: str
    at: datetime
    text: str


@dataclass(frozen=True)
class Link:
    old: Said
    new: Said
    attribute: str
    before: str
    after: str

    def why(self) -> str:
        return (
            f"{self.new.speaker}'s {self.attribute} changed from '{self.before}' to "
            f"'{self.after}' on {self.new.at.date().isoformat()}"
        )


def _value(raw: str) -> str | None:
    words = raw.strip(" .,!?;:'\"").split()
    while words and words[-1] in {"of", "de", "du", "la", "le", "van", "von", "del"}:
        words.pop()
    value = " ".join(words)
    return value if value and value not in _NOT_VALUES else None


def _about_speaker(sentence: str, cue_at: int, attribute: str) -> bool:
    other = _OTHER.search(sentence)
    if other is not None and other.start() < cue_at and attribute not in {"partner", "manager"}:
        return False
    third = _THIRD.search(sentence)
    return third is None or third.start() > cue_at or bool(_FIRST.search(sentence))


def statements(text: str) -> list[Statement]:
    """The attributes of the speaker's own life ``text`` states a value of: those the rules
    read, and the values declared of any thing of theirs (memvault.kg.declared)."""
    return list(_statements(text))


@lru_cache(maxsize=2048)  # recall and the dream read the same candidates' texts again
def _statements(text: str) -> tuple[Statement, ...]:
    out: list[Statement] = []
    pasted = len(text) > _PASTED  # a document, a search result, a data batch pasted in
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", join_abbreviations(text)):
        known: set[str] = set()
        for attribute, (cue, patterns) in _RULES.items():
            if pasted and not _SELF_WORD.search(sentence):
                break  # in a long text only what the speaker says of themself is theirs
            if cue.search(sentence) is None:
                continue  # the values are read only where a cue is
            taken = _first_value(sentence, patterns)
            # a cue word inside a longer name taken as the value is the name's, not a cue:
            # "Just back from Nordica Living, the furniture shop" says nothing of where one
            # lives (a value that is the cue itself, "I'm pescatarian", still counts)
            found = next(
                (c for c in cue.finditer(sentence) if taken is None or not _part_of(c, taken[1])),
                None,
            )
            if found is None:
                continue
            if not _about_speaker(sentence, found.start(), attribute):
                continue
            if not asserted(sentence, found.start()):  # "Do I still live in Leeds?"
                continue
            if taken:
                out.append(Statement(attribute, _canonical(attribute, taken[0])))
                known.add(attribute)
            elif attribute in _LEFT and (gone := _first_value(sentence, (_LEFT[attribute],))):
                out.append(Statement(attribute, f"no longer {gone[0]}"))
                known.add(attribute)
        for thing, value in declared(sentence):
            if not asserted(sentence, sentence.lower().find(thing)):
                continue
            attribute = _known_as(thing) or thing
            if attribute not in known:
                out.append(Statement(attribute, value))
    return tuple(out)


# a turn longer than this is more than someone telling their news: a subjectless sentence
# in it ("Headquartered at Citadel.") is the document's, not the speaker's
_PASTED = 600
# the first person, in the case people write it ("US" in an address is no "us")
_SELF_WORD = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|[Mm]e|[Mm]y|[Ww]e|[Ww]e're|[Uu]s|[Oo]ur)\b")


def _known_as(thing: str) -> str | None:
    """The attribute the rules know a one-word thing as ("my employer", "my partner")."""
    if " " in thing:
        return None
    return next((a for a, words in ASKED_STEMS.items() if stem(thing) in words), None)


def is_declared(attribute: str) -> bool:
    """An attribute named by what the person called the thing, not one the rules know."""
    return attribute not in _RULES


def same_attribute(a: str, b: str) -> bool:
    return a == b or (is_declared(a) and is_declared(b) and same_thing(a, b))


def _group(attribute: str) -> str:
    return f"declared:{head(attribute)}" if is_declared(attribute) else attribute


def _canonical(attribute: str, value: str) -> str:
    if attribute == "commute":
        return _MODES.get(value.lower(), value.lower())
    return value.lower() if attribute in {"team", "diet"} else value


def _first_value(
    sentence: str, patterns: Sequence[re.Pattern[str]]
) -> tuple[str, tuple[int, int]] | None:
    """The value the first pattern that finds one reads, and where in ``sentence`` it is."""
    for pattern in patterns:
        m = pattern.search(sentence)
        value = _value(m.group(m.lastindex or 1)) if m else None
        if m and value:
            return value, m.span(m.lastindex or 1)
    return None


def _part_of(found: re.Match[str], span: tuple[int, int]) -> bool:
    """Whether ``found`` lies inside ``span`` and is not all of it."""
    inside = span[0] <= found.start() and found.end() <= span[1]
    return inside and found.span() != span


def adds(text: str) -> bool:
    return bool(_ADDS.search(text))


def same_value(a: str, b: str) -> bool:
    """One value said twice: equal but for case and spaces, or one the other's first words
    ("Kestrel" for "Kestrel Robotics", "Helio" for "Helio Labs"): a shorter name is a
    restatement, not a change."""
    x, y = a.lower().split(), b.lower().split()
    short, long = sorted((x, y), key=len)
    return bool(short) and long[: len(short)] == short


def judge(old: Said, new: Said) -> Link | None:
    """Does ``new`` replace ``old``? Same speaker, later, one attribute, another value, and
    not said as an addition."""
    if old.speaker.lower() != new.speaker.lower() or new.at <= old.at or adds(new.text):
        return None
    before = statements(old.text)
    for s in statements(new.text):
        for b in before:
            if same_attribute(b.attribute, s.attribute) and not same_value(b.value, s.value):
                return Link(old, new, _longer(b.attribute, s.attribute), b.value, s.value)
    return None


def _longer(a: str, b: str) -> str:
    return max((a, b), key=lambda name: (len(name.split()), name))


def chains(said: Iterable[Said]) -> list[Link]:
    """Per speaker and attribute, in time order: each statement → the first later statement
    with another value (restatements of a value are all replaced by the next value; an
    addition replaces nothing)."""
    by: dict[tuple[str, str], list[tuple[Said, Statement]]] = defaultdict(list)
    for s in said:
        for st in statements(s.text):
            by[(s.speaker.lower(), _group(st.attribute))].append((s, st))
    links: list[Link] = []
    for items in by.values():
        items.sort(key=lambda sv: (sv[0].at, sv[0].text, sv[0].id))
        for i, (old, was) in enumerate(items):
            for new, now in items[i + 1 :]:
                if new.at <= old.at or adds(new.text):
                    continue
                if not same_attribute(was.attribute, now.attribute):
                    continue  # "flight number" and "seat number": two things
                if not same_value(now.value, was.value):  # a restatement only corroborates
                    attribute = _longer(was.attribute, now.attribute)
                    links.append(Link(old, new, attribute, was.value, now.value))
                    break
    return links


# the stems of the words a question about each attribute uses
ASKED_STEMS = {a: {stem(w) for w in words} for a, words in QUESTION_WORDS.items()}
