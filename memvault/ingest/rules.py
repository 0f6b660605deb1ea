"""RULE-BASED extraction: what the offline provider answers extraction prompts with.

Named entities are capitalised word runs (the speaker is a person); facts come from common
first-person statements ("I live in X", "we moved to X", "I started at X", "I'm vegetarian",
"I prefer X", "my manager is X", ...). It is precise
on those forms and blind to everything else; a configured LLM does the general case. Pure
functions, no I/O: the offline LLM provider calls :func:`extract`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memvault.ingest.declared_facts import declared_facts
from memvault.ingest.objects import clean_object, moved_home
from memvault.ingest.others import facts_about_others
from memvault.language.kinds import kind_of
from memvault.language.lexicon import common_word
from memvault.language.mood import asserted
from memvault.language.person import is_assistant
from memvault.language.text import join_abbreviations, shared_subject
from memvault.llm.prompts import ExtractedEntity, ExtractedFact, Extraction

_OBJ = r"(?P<obj>[^.,!?;:()\"]+?)"
_STOP_WORDS = (
    r"and|but|because|since|so|which|who|when|where|now|too|anymore|though|as|"
    r"last|next|this|yesterday|today|tomorrow|recently|ago|remotely"
)
_END = rf"(?=\s+(?:{_STOP_WORDS})\b|[.,!?;:()\"]|$)"
# a named thing (a place, an organisation) ends before "for", "with", "until" too: "in Lisbon
# with my partner", "to Madrid for good"; a description does not ("short answers with code");
# nor does it run on into a date: "moved to Braga in January", "started at Contoso in 2024"
_WHEN = (
    r"(?:in|on|by|during|from) (?:the )?(?:january|february|march|april|may|june|july|"
    r"august|september|october|november|december|spring|summer|autumn|fall|winter|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d{4})"
)
_END_ENTITY = rf"(?=\s+(?:{_STOP_WORDS}|for|with|until|{_WHEN})\b|[.,!?;:()\"]|$)"
_INTENS = r"(?:really |also |still |absolutely |just |totally |so )?"


@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern[str]
    predicate: str  # "{rel}" is replaced by the named group ``rel``
    template: str  # how the statement reads; {s} subject, {o} object, {rel} relation
    confidence: float
    object_is_entity: bool = False
    # what the object must be: "place" ("moved to X": a new home only if X is one,
    # objects.moved_home), "name" ("my partner is X": not "pregnant", "a golden retriever")
    needs: str = ""


def _rule(
    regex: str,
    predicate: str,
    template: str,
    confidence: float = 0.75,
    entity: bool = False,
    needs: str = "",
) -> _Rule:
    end = _END_ENTITY if entity else _END
    pattern = re.compile(regex + end, re.IGNORECASE)
    return _Rule(pattern, predicate, template, confidence, entity, needs)


_RELATIONS = (
    r"manager|boss|wife|husband|partner|girlfriend|boyfriend|sister|brother|mom|mother|dad|"
    r"father|son|daughter|best friend|doctor|therapist|teacher|mentor|roommate|dog|cat|pet"
)

RULES: tuple[_Rule, ...] = (
    _rule(
        rf"\bI(?:'m| am)? {_INTENS}(?:live|living) in {_OBJ}",
        "lives_in",
        "{s} lives in {o}",
        0.8,
        True,
    ),
    _rule(
        rf"\bI(?:'ve| have)? {_INTENS}(?:moved|relocated|am moving|'m moving) to {_OBJ}",
        "lives_in",
        "{s} lives in {o}",
        0.75,
        True,
        needs="place",
    ),
    # a move said for the household ("we moved to X") is the speaker's move too
    _rule(
        rf"\bwe(?:'ve| have)? {_INTENS}(?:finally |now )?(?:moved|relocated) to {_OBJ}",
        "lives_in",
        "{s} lives in {o}",
        0.75,
        True,
        needs="place",
    ),
    _rule(
        rf"\bI(?:'m| am) (?:now |currently )?based in {_OBJ}",
        "lives_in",
        "{s} lives in {o}",
        0.75,
        True,
    ),
    _rule(rf"\bI(?:'m| am) (?:originally )?from {_OBJ}", "from", "{s} is from {o}", 0.8, True),
    _rule(
        rf"\bI {_INTENS}started (?:a new job |working )?at {_OBJ}",
        "works_at",
        "{s} works at {o}",
        0.75,
        True,
    ),
    _rule(rf"\bmy first day at {_OBJ}", "works_at", "{s} works at {o}", 0.75, True),
    _rule(
        r"\bI(?:'m| am) (?:now )?(?:on|in) the (?P<obj>[\w -]+?) team",
        "team",
        "{s} is on the {o} team",
        0.75,
    ),
    _rule(rf"\bmy new team is (?:the )?{_OBJ}", "team", "{s} is on the {o} team", 0.75),
    _rule(
        r"\bI(?:'m| am) (?:now |still |also )?(?P<obj>vegetarian|vegan|pescatarian)",
        "diet",
        "{s} is {o}",
        0.8,
    ),
    _rule(
        r"\bI (?:decided to |have decided to )?(?:go|went|gone) (?P<obj>vegetarian|vegan)",
        "diet",
        "{s} is {o}",
        0.75,
    ),
    _rule(
        rf"\bI {_INTENS}(?:work|am working|'m working) (?:at|for) {_OBJ}",
        "works_at",
        "{s} works at {o}",
        0.8,
        True,
    ),
    _rule(rf"\bI work as an? {_OBJ}", "occupation", "{s} works as {o}", 0.8),
    _rule(rf"\bI {_INTENS}prefer {_OBJ}", "prefers", "{s} prefers {o}", 0.75),
    _rule(rf"\bI(?:'m| am) a (?:big|huge) fan of {_OBJ}", "likes", "{s} likes {o}", 0.7),
    _rule(rf"\bI {_INTENS}(?:like|love|enjoy|adore) {_OBJ}", "likes", "{s} likes {o}", 0.65),
    _rule(
        rf"\bI {_INTENS}(?:hate|dislike|can't stand|cannot stand) {_OBJ}",
        "dislikes",
        "{s} dislikes {o}",
        0.7,
    ),
    # the liking rule said with a negation: "I don't like X (anymore)", "I no longer enjoy X"
    _rule(
        rf"\bI (?:don't|do not|no longer|never) {_INTENS}(?:like|love|enjoy) {_OBJ}",
        "dislikes",
        "{s} dislikes {o}",
        0.6,
    ),
    _rule(
        rf"\bmy (?:favorite|favourite) (?P<rel>\w+(?: \w+)?) is {_OBJ}",
        "favorite_{rel}",
        "{s}'s favorite {rel} is {o}",
        0.8,
    ),
    _rule(
        rf"\bmy (?P<rel>{_RELATIONS})(?:'s name)? is {_OBJ}",
        "{rel}",
        "{s}'s {rel} is {o}",
        0.8,
        True,
        needs="name",
    ),
    _rule(rf"\bmy name is {_OBJ}", "name", "{s}'s name is {o}", 0.9),
    _rule(r"\bI(?:'m| am) (?P<obj>\d{1,3}) years old", "age", "{s} is {o} years old", 0.85),
    _rule(rf"\bmy birthday is (?:on )?{_OBJ}", "birthday", "{s}'s birthday is {o}", 0.85),
)

# Capitalised words that start sentences or fill talk, never entities on their own.
_COMMON = frozenset(
    """
    i i'm i've i'll i'd a an the my our your his her their its we you he she they it
    this that these those what when where why how who which whose hey hi hello thanks
    thank yes no yeah yep nope oh wow ok okay sure well so and but or if then also just
    really great good nice cool awesome amazing love glad sorry please congrats
    congratulations haha lol do does did is are was were be been have has had can could
    would should will may might let let's there here not nothing something everything
    anything all some any one two monday tuesday wednesday thursday friday saturday
    sunday today tomorrow yesterday mr mrs ms dr by with for from to in on at of as
    after before during about
    """.split()
)
# words that open a sentence in chat and are no one's name ("Sounds fun!", "Thankfully it
# worked", "Seeing Caroline happy…"): capitalised only because they come first, never part
# of one; adjectives ("Big change: …", "Long week.") only when no capitalised word follows
# ("Big Sur"). Nouns that open a sentence ("Pottery is …") stay: they are topics
_OPENERS = frozenset(
    """
    sounds sound seems looks feels seeing being getting having making taking trying
    talking thinking finding creating wishing hoping keep check take got get bet hope
    reminds remember guess imagine appreciate appreciated appreciating
    wow aw aww omg ugh hmm hm um uh yay thankfully absolutely definitely totally honestly
    seriously actually anyway anyways luckily hopefully unfortunately fortunately basically
    obviously surely exactly plus since though although still even maybe perhaps probably
    almost often sometimes always never usually everyone someone anyone nobody everybody
    somebody bye goodbye cheers gonna wanna gotta kinda sorta nah oops whoa woah yup yum
    gotcha anytime ooh oof phew woohoo btw lol lmao fyi imo imho tbh idk
    """.split()
)
_OPENING_ADJECTIVES = frozenset(
    """
    big small little long short last next first new old same such lots busy crazy tough
    hard fun funny true right glad happy sad excited proud
    """.split()
)
_MONTHS = frozenset(  # and the calendar's abbreviations ("last Tues", "on Fri"): no names
    """
    january february march april may june july august september october november
    december jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur
    thurs fri sat sun
    """.split()
)
# one name runs on across the small words names are made with ("Bank of America", "Serra da
# Estrela", "Ludwig van Beethoven", "Cidade del Este"): only between two capitalised words
_PARTICLES = r"of(?:\s+the)?|the|de|da|das|dos|del|della|di|du|van|von|der|den|la|le"
_CAP_RUN = re.compile(rf"\b[A-Z][\w'’-]*(?:\s+(?:(?:{_PARTICLES})\s+)?[A-Z][\w'’-]*)*")
_JOINED = re.compile(  # "and Bo", "or Bo", ", Fay and Gus" (the last name is read)
    r"(?:\s+(?:and|or|&)\s+|(?:,\s*[A-Z][\w'’-]*)+,?\s+(?:and|or)\s+)([A-Z][\w'’-]*)"
)
_NAME_MAX = 100  # a longer run of capitals is a pasted key or a shouted paragraph
_QUOTED = re.compile(r"[\"“]([^\"“”\n]{1,80})[\"”]")
_PERSON_CUE = re.compile(
    rf"\bmy (?:{_RELATIONS}|friend|colleague|cousin|aunt|uncle)\s+$", re.IGNORECASE
)
_ORG_WORDS = frozenset(
    """
    inc corp corporation ltd llc company university college school institute hospital
    bank church club association foundation agency
    """.split()
)
_FIRST_PERSON = re.compile(r"\b(?:I|my|we)\b", re.IGNORECASE)


def extract(text: str, *, speaker: str | None, subject_hint: str = "user") -> Extraction:
    """Entities and first-person facts of one memory, by rule."""
    subject = speaker or subject_hint
    text = join_abbreviations(text)  # "St. Louis" is one name
    entities: dict[str, ExtractedEntity] = {}
    if speaker:
        entities[speaker.lower()] = ExtractedEntity(name=speaker, type="person")
    for name, etype, tentative in _named_entities(text):
        had = entities.get(name.lower())
        if had is None or (had.tentative and not tentative):
            entities[name.lower()] = ExtractedEntity(name=name, type=etype, tentative=tentative)
    # an assistant's first person is a role it plays or a template it fills ("My name is
    # [Your Name]", a cover letter's "I live in Paris"): its words are kept, no fact of them
    facts: list[ExtractedFact] = []
    if not is_assistant(speaker):
        facts = _facts(shared_subject(text), subject) if _FIRST_PERSON.search(text) else []
        facts += declared_facts(text, subject, {f.object.lower() for f in facts})
        facts += facts_about_others(text, speaker)  # "my sister Joana lives in Porto"
    for fact in facts:
        if fact.object_is_entity:
            entities.setdefault(fact.object.lower(), ExtractedEntity(name=fact.object))
    return Extraction(entities=list(entities.values()), facts=facts)


def _named_entities(text: str) -> list[tuple[str, str, bool]]:
    """Runs of capitalised words: (name, type, tentative). A word that opens a sentence is
    capitalised because it comes first: if it is an ordinary English word ("Horses have
    such grace!", "Gaming can be…"; memvault.language.lexicon) it is **tentative** (kept
    only if the namespace already knows the name: memvault.ingest.resolve), else a name
    ("Lena lives in Porto"). A longer run that opens a sentence is tentative, and so is the
    rest of it after its first word ("Dear Joanna" → "Joanna"), unless that first word is a
    verb's -ing or -ed form ("Leaving Bologna was hard" → "Bologna", a name wherever it
    stands)."""
    found: list[tuple[str, str, bool]] = []
    titles = [m for m in _QUOTED.finditer(text) if _title(m.group(1))]
    for m in titles:
        title = m.group(1).strip(" .,!?").split()
        found += _name(_preceding(text, m.start()), title, tentative=False, quoted=True)
    for match in _CAP_RUN.finditer(text):
        if any(t.start() < match.start() < t.end() for t in titles):
            continue  # part of a quoted title
        words = match.group(0).split()
        opens = _opens_sentence(text, match.start())
        while words and (_common(words[0]) or (opens and _opener(words[0], alone=len(words) == 1))):
            words.pop(0)
            opens = False  # what follows a dropped word is not first in its sentence
        while words and _common(words[-1]):
            words.pop()
        if not words:
            continue
        before = _preceding(text, match.start())
        if opens:
            rest = words[1:]
            while rest and not rest[0][0].isupper():  # "Debugging the Java service"
                rest = rest[1:]
            if rest:
                found += _name(before, rest, tentative=not _verb_form(words[0]))
            # one word: a name unless it is an ordinary word ("Lena lives in Porto",
            # "Horses have such grace")
            found += _name(before, words, tentative=bool(rest) or common_word(words[0]))
            continue
        found += _name(before, words, tentative=False)
    return _coordinated(text, found)


def _preceding(text: str, at: int, size: int = 160) -> str:
    """What stands just before ``at``: the cues read there ("my sister ", "the film
    called ") end where the name starts, so the last words suffice, from a word's start
    (a long turn's whole beginning would be searched once per name)."""
    if at <= size:
        return text[:at]
    window = text[at - size : at]
    space = window.find(" ")
    return window[space + 1 :] if space >= 0 else window


def _coordinated(text: str, found: list[tuple[str, str, bool]]) -> list[tuple[str, str, bool]]:
    """A tentative name joined by "and" or "or" to a name that is not tentative is one too
    ("Ana and Bo went hiking": Bo stands mid-sentence), and so is the head of a list that
    ends in one ("Eve, Fay and Gus"); a comma alone is no list ("Gotcha, Jon!")."""
    sure = {n for n, _, tentative in found if not tentative}
    out = []
    for name, etype, tentative in found:
        if tentative and " " not in name:
            at = re.search(rf"\b{re.escape(name)}\b", text)
            after = _JOINED.match(text, at.end()) if at else None
            tentative = not (after and after.group(1) in sure)
        out.append((name, etype, tentative))
    return out


def _title(quoted: str) -> bool:
    """A quoted title ("The Name of the Wind", "Inception"), not a quoted sentence ("Always
    look on the bright side of life", "Maybe later"): at most eight words, the first
    capitalised, and most of those longer than three letters not lower-case ("Cyberpunk
    2077")."""
    words = quoted.strip(" .,!?").split()
    if not words or len(words) > 8 or not words[0][:1].isupper():
        return False
    long = [w for w in words if len(w) > 3] or words
    return len(long) == 1 or 2 * sum(not w[:1].islower() for w in long) > len(long)


def _name(
    before: str, words: list[str], *, tentative: bool, quoted: bool = False
) -> list[tuple[str, str, bool]]:
    name = " ".join(words).rstrip("'’").removesuffix("'s").removesuffix("’s")
    if not 2 <= len(name) <= _NAME_MAX or name.lower() in _MONTHS:
        return []
    return [(name, _entity_type(before, words, quoted), tentative)]


def _verb_form(word: str) -> bool:
    """An -ing or -ed form ("Leaving", "Compared", "Swapped"): morphology, not a list."""
    plain = word.lower()
    return len(plain) > 4 and plain.endswith(("ing", "ed"))


def _base(word: str) -> str:
    """The word without a contraction or possessive: "It's" → "it", "You're" → "you"."""
    return word.lower().replace("’", "'").strip("'").split("'")[0]


def _common(word: str) -> bool:
    """A word no name is: a common word, or a verb's contraction ("Don't", "Isn't": a
    possessive stays a name, "Ana's")."""
    plain = word.lower().replace("’", "'").strip("'")
    contracted = plain.endswith(("n't", "'re", "'ve", "'ll", "'d", "'m"))
    return contracted or plain in _COMMON or _base(word) in _COMMON


def _opener(word: str, *, alone: bool) -> bool:
    base = _base(word)
    return base in _OPENERS or (alone and base in _OPENING_ADJECTIVES)


def _opens_sentence(text: str, at: int) -> bool:
    """First in its sentence, or first inside a quotation ('The sign says, "Always …"')."""
    spaced = text[:at].rstrip(" \t")
    if spaced.endswith("“") or (spaced.endswith('"') and spaced.count('"') % 2 == 1):
        return True  # an opening quotation mark
    before = spaced.rstrip(" \t\"'“‘(*-")
    return not before or before[-1] in ".!?:;\n"


def _entity_type(before: str, words: list[str], quoted: bool = False) -> str:
    """An organisation by its last word, a person by a relation before it ("my sister
    Lena"), else what world knowledge says of the name (memvault.language.kinds); a
    preposition alone ("at Starbucks", "to Nils Frahm") says nothing of its kind."""
    if words[-1].lower() in _ORG_WORDS:
        return "organization"
    if _PERSON_CUE.search(before):
        return "person"
    return kind_of(" ".join(words), before, quoted=quoted) or "unknown"


def _is_what_it_needs(rule: _Rule, obj: str, match: re.Match[str], text: str) -> bool:
    if rule.needs == "place":
        return moved_home(obj, _after(match, obj, text))
    return rule.needs != "name" or obj[:1].isupper()


def _after(match: re.Match[str], obj: str, text: str) -> str:
    """What follows the object ``obj`` read from ``match``: the rest of the words the rule
    took ("at Leeds General Infirmary" after "the ICU"), then the rest of the text."""
    raw = match.group("obj")
    at = raw.find(obj)
    return (raw[at + len(obj) :] if at >= 0 else "") + text[match.end() :]


def _facts(text: str, subject: str) -> list[ExtractedFact]:
    out: list[ExtractedFact] = []
    seen: set[tuple[str, str]] = set()
    for rule in RULES:
        for match in rule.pattern.finditer(text):
            obj = clean_object(match.group("obj"), named=rule.object_is_entity)
            if not obj or not _is_what_it_needs(rule, obj, match, text):
                continue
            if not asserted(text, match.start()):  # asked or supposed: "If I moved to Paris"
                continue
            groups = match.groupdict()
            rel = (groups.get("rel") or "").lower()
            predicate = rule.predicate.format(rel=rel.replace(" ", "_"))
            if (predicate, obj.lower()) in seen:
                continue
            seen.add((predicate, obj.lower()))
            out.append(
                ExtractedFact(
                    subject=subject,
                    predicate=predicate,
                    object=obj,
                    statement=rule.template.format(s=subject, o=obj, rel=rel),
                    confidence=rule.confidence,
                    object_is_entity=rule.object_is_entity,
                )
            )
    return out
