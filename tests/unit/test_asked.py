"""What kind of thing a question asks for (memvault.language.asked)."""

from __future__ import annotations

import pytest

from memvault.language.asked import asked_kind, asks_amount, asks_for_many, two_things


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Where is Olga based these days?", "place"),
        ("Which city does Bram call home?", "place"),
        ("What neighbourhood am I in now?", "place"),
        ("Who is Xena seeing at the moment?", "person"),
        ("Who's her manager now?", "person"),
        ("Who does Aiko work for?", None),  # an employer, not a person
        ("What does Milan eat?", None),
        ("Which team is Hanna on?", None),
    ],
)
def test_the_kind_a_question_asks_for(question: str, kind: str | None) -> None:
    assert asked_kind(question) == kind


@pytest.mark.parametrize(
    ("question", "many"),
    [
        ("What LGBTQ+ events has Caroline participated in?", True),
        ("In what ways is Caroline helping?", True),
        ("Which pets does Lea have?", True),
        ("What people has Maria met?", True),  # an irregular plural
        ("How many children does she have?", True),
        ("What are Sam's plans for the summer?", True),
        ("What kind of art does Caroline make?", False),
        ("What team does Kofi belong to?", False),
        ("Where does Maya live?", False),
        ("What is the news?", False),  # the phrase ends at "is": no noun in it
        ("What does Melanie do to destress?", False),
        ("Who is Xena's partner?", False),
        ("Which neighbourhood am I in these days?", False),  # "days" is after the clause
    ],
)
def test_a_question_asking_for_several_things(question: str, many: bool) -> None:
    assert asks_for_many(question) is many


@pytest.mark.parametrize(
    ("question", "amount"),
    [
        ("How many people am I cooking for?", True),
        ("How old is Jolene?", True),
        ("How much does James pay per cooking class?", True),
        ("How long has Melanie been practicing art?", True),
        ("At what age did Sam start running?", True),
        ("How many times did I do the trail run?", False),  # occurrences: counted, not said
        ("How often do I go to the pasta class?", False),
        ("In total, how many open mics did I do?", False),
        ("Where does Maya live?", False),
        ("How did the trip go?", False),
        # the time between two moments is reckoned from when each happened, not said
        ("How many days passed between painting the nursery and my first gig?", False),
        ("How long was it from the race until the homemade bread?", False),
        ("How long did Evan and his partner date before getting married?", False),
        ("After how many weeks did Tim reconnect with the fan?", False),
        ("How many people came between ten and noon?", True),  # no length of time asked
    ],
)
def test_a_question_asking_for_an_amount(question: str, amount: bool) -> None:
    assert asks_amount(question) is amount


@pytest.mark.parametrize(
    ("question", "things"),
    [
        (
            "Which did I do first, the race or the homemade bread?",
            ["the race", "the homemade bread"],
        ),
        ("What happened first: the gig or the bread?", ["the gig", "the bread"]),
        (
            "How many days passed between painting the nursery and renewing my passport?",
            ["painting the nursery", "renewing my passport"],
        ),
        ("How long was it from the race until the gig?", ["the race", "the gig"]),
        # "to" inside a thing: "until" joins the ends; else halves that open alike
        (
            "How long was it from presenting the numbers to the directors until getting my new"
            " travel document?",
            ["presenting the numbers to the directors", "getting my new travel document"],
        ),
        (
            "How many weeks was it from moving to Berlin to starting my new job?",
            ["moving to Berlin", "starting my new job"],
        ),
        ("How long was it from the race to the gig?", ["the race", "the gig"]),
        (
            "How many days passed between baking bread and butter cookies and painting the fence?",
            ["baking bread and butter cookies", "painting the fence"],
        ),
        ("Would Caroline prefer tea or coffee?", []),  # no comma: one clause
        ("When did he return from his trip to Toronto and Vancouver?", []),  # no length asked
        ("What is the topic of discussion between John and Tim?", []),
        # a clause, not a thing: "… what advice might they give to someone facing a move or a loss?"
        ("Considering all, what advice might they give to someone facing a move or a loss?", []),
    ],
)
def test_the_two_things_a_question_weighs(question: str, things: list[str]) -> None:
    assert two_things(question) == things
