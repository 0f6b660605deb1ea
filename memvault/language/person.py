"""Who a question is about, from its grammatical person: in a chat between a person and an
assistant, "what did you recommend" asks what the assistant said, "what did I say" / "my
favourite colour" what the person said. Pronouns are closed-class words, not phrasings of
any one question. A question whose only subject is the listener ("what did you tell me about
my knee?": "me" and "my" are an object and an owner) asks what the listener said; one with
both as subjects ("one of your answers I remember", "what did I tell you"), one that asks
the listener to remember ("do you remember my favourite colour?") or one in neither person
says nothing about who said it. A request to the listener ("can
you suggest a place for dinner?", "what would you recommend for my week?": a modal before
"you", nothing said in the past) asks for something new for its asker: what the person said
of themselves is what answers it, not what the assistant said before. Pure.
"""

from __future__ import annotations

import re
from typing import Literal

from memvault.language.words import tokens

_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”")  # words quoted are someone else's grammar

# the names a conversation's assistant side goes by (speakers, not people): the roles of the
# common chat formats ("assistant" in OpenAI's and Anthropic's, "model" in Gemini's, "gpt" in
# ShareGPT exports, "ai" in LangChain's), and the generic ones
ASSISTANTS = frozenset(
    {"assistant", "agent", "tool", "system", "bot", "ai", "model", "gpt", "chatgpt", "llm"}
)
FIRST = frozenset(
    "i me my mine myself i'm i've i'd i'll we us our ours ourselves we're we've we'd we'll".split()
)
# the first person as a subject: "me", "us", "my", "our" are objects or owners ("what did you
# tell me about my knee" has "you" as its only subject: it asks what the listener said)
FIRST_SUBJECT = frozenset("i i'm i've i'd i'll we we're we've we'd we'll".split())
SECOND = frozenset("you your yours yourself you're you've you'd you'll".split())


def is_assistant(speaker: str | None) -> bool:
    return (speaker or "").strip().lower() in ASSISTANTS


# a modal right before "you" asks the listener to do something; a past auxiliary or a past
# form after "you" asks what the listener did ("what did you recommend", "the one you said")
_REQUEST = re.compile(r"\b(?:can|could|would|will)\s+you\b", re.IGNORECASE)
_PAST = re.compile(
    r"\b(?:did|didn't|was|wasn't|were|weren't|had|hadn't)\b"
    r"|\byou(?:'ve| have)?\s+(?:\w+ed|said|told|gave|wrote|sent|showed|made|chose)\b",
    re.IGNORECASE,
)


# the listener asked to know or remember ("do you remember my favourite colour?") is asked
# about what the asker said, not about what the listener said
_KNOWS = re.compile(r"\byou\s+(?:still\s+)?(?:remember|recall|know)\b", re.IGNORECASE)


def asked_person(query: str) -> Literal["first", "second"] | None:
    """``first`` when the question speaks only of its asker (I, my, we) or asks its listener
    for something new (a request), ``second`` when it speaks only to its listener (you,
    your) or has the listener as its only subject ("what did you tell me about my knee?");
    None for both as subjects, for the listener asked to remember, or for neither."""
    plain = _QUOTED.sub(" ", query)
    if _REQUEST.search(plain) and not _PAST.search(plain):
        return "first"
    words = {t.replace("’", "'") for t in tokens(plain)}
    first, second = bool(words & FIRST), bool(words & SECOND)
    if first and second and not words & FIRST_SUBJECT and not _KNOWS.search(plain):
        return "second"  # the listener the only subject, the asker an object or an owner
    if first == second:
        return None
    return "first" if first else "second"


def in_first_person(text: str) -> bool:
    """The text speaks of its speaker (I, my, we, our…), quoted words aside."""
    words = {t.replace("’", "'") for t in tokens(_QUOTED.sub(" ", text))}
    return bool(words & FIRST)


def speakers_meant(query: str, speakers: set[str]) -> set[str]:
    """The namespace's speakers the question's grammatical person points to, when one side
    of the conversation is an assistant and the other is not: the assistant for the second
    person, everyone else for the first. Empty otherwise."""
    person = asked_person(query)
    assistants = {s for s in speakers if is_assistant(s)}
    others = set(speakers) - assistants
    if person is None or not assistants or not others:
        return set()
    return assistants if person == "second" else others
