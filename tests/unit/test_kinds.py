"""What kind of thing a name is, offline (memvault.language.kinds): world knowledge from
installed packages and the name's shape. None of these names is in the benchmark's labels."""

from __future__ import annotations

import pytest

from memvault.ingest.rules import extract
from memvault.language.kinds import kind_of


@pytest.mark.parametrize(
    ("name", "before", "kind"),
    [
        ("Tartu", "I moved to ", "place"),  # a city of ~90,000
        ("Nantes", "", "place"),
        ("Portugal", "", "place"),
        ("Oregon", "", "place"),
        ("Paris", "", "place"),  # a given name too, but a city of millions
        ("Florence", "", "person"),  # a given name, and a city of fewer than 500,000
        ("Priyanka", "", None),  # not in the US census's given names: no claim
        ("Margaret", "", "person"),
        ("Ingrid Bergman", "", "person"),  # a given name, then capitalised words
        ("Lake Bled", "", "place"),
        ("Blue Ridge Mountains", "", "place"),
        ("Portuguese", "", "concept"),  # Portugal with a people's ending
        ("Kenyan", "", "concept"),
        ("Jordan", "", "place"),  # a country, though a given name
        ("Dune Messiah", "I'm reading the book ", "thing"),
        ("Acme Widgets Inc", "", "organization"),
        ("Kafka", "I deployed ", None),  # no place, no given name: no claim
        ("Snowflake", "We moved the data to ", None),  # a town of 5,000: too small to say
    ],
)
def test_a_names_kind_comes_from_what_is_known_of_it(
    name: str, before: str, kind: str | None
) -> None:
    assert kind_of(name, before) == kind


def test_a_preposition_alone_says_nothing_of_a_kind() -> None:
    """ "at Starbucks", "listening to Nils Frahm": the rules called these places."""
    found = {
        e.name: e.type
        for e in extract(
            "Met Ana at Brewdog then listened to Olafur Arnalds.", speaker="Bo"
        ).entities
    }
    assert found["Brewdog"] == "unknown" and found["Olafur Arnalds"] == "unknown"
    assert found["Ana"] == "person"


def test_a_quoted_title_is_a_work() -> None:
    found = {
        e.name: e.type
        for e in extract('Have you read "The Overstory"? It changed me.', speaker="Bo").entities
    }
    assert found["The Overstory"] == "thing"
