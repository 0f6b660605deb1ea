"""The offline rules read whatever people write: no text makes them raise. Found by hand: a
write of "I love '" (an object that is only a quotation mark) raised IndexError out of
``MemVault.write``. Texts are drawn from the openings the rules look for, joined with the
punctuation, quotes, brackets and odd characters real chats hold."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memvault.ingest.rules import extract
from memvault.kg.updates import statements

OPENINGS = [
    "I love", "I hate", "I don't like", "I live in", "I moved to", "I work at", "I work as a",
    "my name is", "My phone number is", "my sister", "my partner is", "I'm", "I am from",
    "My favourite colour is", "we moved to", "I started at", "New number:", "changed my code to",
]  # fmt: skip
BITS = ["'", "’", '"', "“", "-", "—", ":", "(", ")", "[", "]", "{", "}", "#", ".", "!", "?",
        ",", " ", "\n", "\u200b", "\x07", "St.", "Dr.", "and", "to", "the", "I", "Porto",
        "555-0142", "a", "ç", "🙂"]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from(OPENINGS), st.sampled_from(BITS), st.text(max_size=6)),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from(["Sam", "assistant", None]),
)
def test_the_rules_never_raise(parts: list[str], speaker: str | None) -> None:
    text = " ".join(parts)
    extract(text, speaker=speaker)
    statements(text)


def test_an_object_that_is_only_a_quotation_mark_names_nothing() -> None:
    for said in ("I love '", "I love ’", 'I love "', "I love -"):
        assert extract(said, speaker="Sam").facts == []
