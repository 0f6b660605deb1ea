"""Who a question is about, from its grammatical person (memvault/language/person.py)."""

from __future__ import annotations

import pytest

from memvault.language.person import asked_person, is_assistant, speakers_meant
from memvault.language.spelling import other_spelling, with_other_spellings

CHAT = {"user", "assistant"}


@pytest.mark.parametrize(
    ("query", "person"),
    [
        ("Which wine did you recommend for the lamb?", "second"),
        ("What did Dr. Okonkwo tell me to do?", "first"),
        ("Where do I live now?", "first"),
        ("What did you tell me about my knee?", "second"),  # "me", "my": not the subject
        ("What did I tell you about my knee?", None),  # "I" and "you" as subjects: both
        ("What did Caroline research?", None),  # neither
        ('You once wrote "I love it when a plan works", what was that about?', "second"),
        # a request asks for something new for its asker; asked of the past, it is recall
        ("Can you suggest a place for dinner on Friday?", "first"),
        ("What would you recommend for a way to invest my bonus?", "first"),
        ("Could you repeat what you said about rent?", "second"),
        ("Can you remind me which hotel you recommended?", "second"),
        ("What do you think about Rust?", "second"),
    ],
)
def test_the_grammatical_person_of_a_question(query: str, person: str | None) -> None:
    assert asked_person(query) == person


@pytest.mark.parametrize(
    ("query", "person"),
    [
        # written before the rule: "you" the only subject, the asker only an object or an
        # owner (me, us, my, our) asks what the listener said or did
        ("Which book did you suggest to me last month?", "second"),
        ("What recipe did you send us for the party?", "second"),
        ("Remind me what you told me about the deposit.", "second"),
        ("The hotel you recommended to me, what was it called?", "second"),
        ("Which stretches did you give me for my back?", "second"),
        # the listener asked to know or remember what the asker said: no side
        ("Do you remember my favourite colour?", None),
        ("Do you know where my passport is?", None),
        ("Do you recall our plan for June?", None),
        # the asker a subject too: no side
        ("What did I ask you about pruning roses?", None),
        ("Did we tell you where we went in June?", None),
    ],
)
def test_the_subject_decides_when_a_question_is_in_both_persons(
    query: str, person: str | None
) -> None:
    assert asked_person(query) == person


def test_the_person_points_to_a_side_only_in_a_chat_with_an_assistant() -> None:
    assert speakers_meant("What did you recommend?", CHAT) == {"assistant"}
    assert speakers_meant("What is my favourite colour?", CHAT) == {"user"}
    assert speakers_meant("What is my favourite colour?", {"Caroline", "Melanie"}) == set()
    assert speakers_meant("What did you recommend?", {"assistant"}) == set()


@pytest.mark.parametrize("role", ["gpt", "GPT", "model", "ChatGPT", " assistant ", "ai"])
def test_the_assistant_side_of_common_chat_exports_is_known_by_its_role(role: str) -> None:
    """ShareGPT's "gpt", Gemini's "model", OpenAI's and Anthropic's "assistant", LangChain's
    "ai": a chat imported from any of them has an assistant side."""
    assert is_assistant(role)
    assert speakers_meant("What did you recommend?", {"human", role}) == {role}
    assert speakers_meant("Where do I live now?", {"human", role}) == {"human"}


def test_people_are_not_the_assistant_side() -> None:
    assert not any(is_assistant(n) for n in ("human", "user", "Maya", "Claude", "Aiden", None))


def test_other_spellings_come_from_the_dictionary_not_from_suffixes() -> None:
    assert other_spelling("Favourite") == "favorite" and other_spelling("color") == "colour"
    assert other_spelling("hour") is None and other_spelling("four") is None
    assert with_other_spellings(["grey", "gray", "mould"]) == ["grey", "gray", "mould", "mold"]
