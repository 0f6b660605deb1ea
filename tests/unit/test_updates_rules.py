"""The offline rules for episode-level updates (memvault.kg.updates): what they read as a
statement of the speaker's own life, and which pairs they link."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memvault.kg.update_questions import asked_attributes
from memvault.kg.updates import Said, Statement, chains, judge, statements

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def _said(i: int, text: str, speaker: str = "Ines") -> Said:
    return Said(id=f"e{i}", speaker=speaker, at=T0 + timedelta(days=30 * i), text=text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We finally moved to Porto! The boxes are everywhere.", ("residence", "Porto")),
        ("Writing from Bergen, which is home now.", ("residence", "Bergen")),
        ("Signed the contract with Quarry Systems, on Monday.", ("employer", "Quarry Systems")),
        ("Today was my first day at Northwind.", ("employer", "Northwind")),
        ("They moved me to the search team.", ("team", "search")),
        ("These days I'm pescatarian, so plan meals for that.", ("diet", "pescatarian")),
        ("I'm eating meat again.", ("diet", "meat")),
        ("My partner Robin says hi.", ("partner", "Robin")),
        ("My new manager is Dana.", ("manager", "Dana")),
        ("I quit Siemens and joined a startup called Fernweh.", ("employer", "Fernweh")),
        ("I quit Siemens last Friday.", ("employer", "no longer Siemens")),
        ("We moved away from Vienna to Zurich.", ("residence", "Zurich")),
        ("We moved out of Vienna.", ("residence", "no longer Vienna")),
        # a word of living that is also in the name still counts where it stands apart
        ("We're living in Living Springs now.", ("residence", "Living Springs")),
        # a way of getting to work, named the same however it is said
        ("My commute now is the 42 bus, about 35 minutes.", ("commute", "bus")),
        ("I've started getting to work by cycling along the canal.", ("commute", "bike")),
        ("I switched from the bus to cycling to work.", ("commute", "bike")),
        ("I stopped driving to work, I take the metro.", ("commute", "metro")),
    ],
)
def test_statements_of_the_speakers_own_life(text: str, expected: tuple[str, str]) -> None:
    assert Statement(*expected) in statements(text)


@pytest.mark.parametrize(
    "text",
    [
        "I still have moving boxes from years ago in the basement.",  # no value
        "My old team lunch was fun.",
        "My sister moved to Rome last spring.",  # someone else's life
        "She lives in Oslo now.",
        "I work with Python every day.",  # a tool, not an employer
        "What's a good vegan lasagna recipe?",  # a diet word, not the speaker's diet
        "I left my keys at home.",
        "My sister drives to work.",
        "I need to work harder this month.",  # "to work" without a way of getting there
        # the only word of living is part of the name the value would be
        "Just back from Nordica Living, the furniture shop everyone talks about.",
        "Dropped the form off at Job Centre Plus.",
        "",
    ],
)
def test_what_is_not_a_statement_of_the_speakers_life(text: str) -> None:
    assert statements(text) == []


def test_a_newer_value_replaces_an_older_one_and_an_addition_does_not() -> None:
    old = _said(0, "Just settled into our new flat in Graz.")
    link = judge(old, _said(3, "Since last month I'm based in Bilbao."))
    assert link is not None and (link.attribute, link.before, link.after) == (
        "residence",
        "Graz",
        "Bilbao",
    )
    assert judge(old, _said(3, "We also have a place in Bilbao now.")) is None  # adds
    assert judge(old, _said(3, "I live in Graz, still.")) is None  # same value
    assert judge(old, _said(3, "I live in Bilbao.", speaker="Tom")) is None  # someone else
    assert judge(_said(3, "I live in Bilbao."), old) is None  # older cannot replace newer
    # the same way of travelling said two ways is a restatement; another way is a change
    bus = _said(0, "My commute is the 42 bus.")
    assert judge(bus, _said(2, "I take the bus to work, the 17 now.")) is None
    link = judge(bus, _said(3, "I cycle to work these days."))
    assert link is not None and (link.before, link.after) == ("bus", "bike")


def test_chains_link_every_restatement_to_the_next_value_and_keep_speakers_apart() -> None:
    said = [
        _said(0, "I live in Berlin."),
        _said(1, "Berlin is where I live, love it."),  # restates: no value found → skipped
        _said(2, "I live in Berlin still."),
        _said(3, "We relocated to Lisbon for good."),
        _said(4, "I live in Madrid.", speaker="Tom"),
        _said(5, "Writing from Rome, which is home now."),
    ]
    pairs = {(link.old.id, link.new.id, link.after) for link in chains(said)}
    assert pairs == {("e0", "e3", "Lisbon"), ("e2", "e3", "Lisbon"), ("e3", "e5", "Rome")}


def test_which_attributes_a_question_asks_about() -> None:
    assert asked_attributes("Where does Ana live now?") == {"residence"}
    assert asked_attributes("Which team is Ana on?") == {"team"}
    assert asked_attributes("What is Ana's diet these days?") == {"diet"}
    assert asked_attributes("What pets does Ana have?") == set()
    assert asked_attributes("What is Ana's hobby now?", ["hobby"]) == {"hobby"}
    # getting to work is a commute, not a question about the employer
    assert asked_attributes("How do I get to work now?") == {"commute"}
    assert asked_attributes("How long does Ana's drive to work take?") == {"commute"}
    assert asked_attributes("How is Ana commuting these days?") == {"commute"}
    assert asked_attributes("Where does Ana work now?") == {"employer"}
    assert asked_attributes("Does Ana go to work at Helio Labs?") == {"employer"}
    # a partner or a manager who takes part beside the subject is not what is asked
    assert asked_attributes("What did Ana and her boyfriend cook on Friday?") == set()
    assert asked_attributes("When did Ana go fishing with her partner?") == set()
    assert asked_attributes("Where did Ana and her wife move last year?") == {"residence"}
    assert asked_attributes("Who is Ana's boyfriend now?") == {"partner"}
    assert asked_attributes("Is Ana still with her partner?") == {"partner"}
    assert asked_attributes("Is Ana with her boyfriend now?") == {"partner"}
    assert asked_attributes("Who is Ana dating?") == {"partner"}
    # "at work" says where: the team is asked, not the employer
    assert asked_attributes("Which group is Aiko in at work?") == set()
    assert asked_attributes("Which team is Aiko on at work?") == {"team"}
    assert asked_attributes("Who does Aiko work for?") == {"employer"}
    # and "at home": the pets are asked, not the residence
    assert asked_attributes("What animals does Gael have at home?") == set()
    assert asked_attributes("Where is home for Gael now?") == {"residence"}


def test_declared_things_are_asked_by_every_word_of_their_name() -> None:
    names = ["phone number", "flight number", "work phone", "dentist"]
    assert asked_attributes("What is my phone number?", declared=names) == {"phone number"}
    assert asked_attributes("What is my seat number?", declared=names) == set()
    assert asked_attributes("Who is my dentist now?", declared=names) == {"dentist"}
    # a one-word thing the rules know is their attribute: "my employer is …"
    assert statements("My employer is Kestrel Pay.") == [Statement("employer", "Kestrel Pay")]
    assert statements("My new phone number is +351 912 345 678.") == [
        Statement("phone number", "+351 912 345 678")
    ]
    assert statements("My sister's number is 555-0100.") == []
    # what is the household's or the team's is declared with "our"
    old, new = (
        _said(0, "Our wifi password is Gull-7731."),
        _said(5, "We changed our wifi password to Kite-2209."),
    )
    link = judge(old, new)
    assert link is not None and (link.attribute, link.after) == ("wifi password", "Kite-2209")


def test_a_shorter_name_of_the_same_value_is_a_restatement_not_a_change() -> None:
    """Found using the CLI: "Work at Kestrel is intense" after "I joined a startup called
    Kestrel Robotics" was read as employer 'Kestrel Robotics' → 'Kestrel'."""
    joined = _said(1, "Big change: I joined a startup called Kestrel Robotics this month.")
    assert judge(joined, _said(2, "I work at Kestrel, it's intense.")) is None
    said = [
        _said(0, "I work at Brightline Bank as an analyst."),
        joined,
        _said(2, "I work at Kestrel, it's intense."),
    ]
    assert [(link.before, link.after) for link in chains(said)] == [
        ("Brightline Bank", "Kestrel Robotics")
    ]
    # but another value that shares a later word is a change
    assert judge(_said(0, "I live in New York."), _said(2, "I live in York.")) is not None


def test_a_pasted_document_states_nothing_of_the_speaker() -> None:
    """Found importing real chats: search results pasted into a prompt ("This company is
    located at SOUTHEAST FINANCIAL CENTER, … MIAMI, FL, US") made the user's employer change
    five times. In a long text only a sentence in the first person is the speaker's own."""
    filler = "Results follow from the registry, with every filing and its agent listed. " * 10
    pasted = (
        f"Web search results: {filler} This company is located at SOUTHEAST FINANCIAL CENTER,"
        " 200 S BISCAYNE BLVD, MIAMI, FL, US and has been running for one year. Headquartered"
        " in New York City since 2014."
    )
    assert statements(pasted) == []
    told = f"{filler} Anyway, I moved to Porto last month."
    assert statements(told) == [Statement("residence", "Porto")]
    # a short message keeps its subjectless news ("Moved to Porto last week.")
    assert statements("Moved to Porto last week, home at last.") == [
        Statement("residence", "Porto")
    ]
