"""Token counts come from the installed tokenizer (o200k_base through tiktoken, its file read
from the installed litellm package), and fall back to characters / 4, labelled, without it."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memvault.folds import clip
from memvault.language.tokens import ESTIMATE, load, tokenizer, tokens

PROSE = (
    "Spent the whole weekend unpacking in our new place in Tartu; the favourite café on the "
    "corner opens at seven and the bakery next door sells rye bread until noon."
)


def test_the_installed_tokenizer_counts_not_characters_over_four() -> None:
    tk = tokenizer()
    assert tk.exact and tk.name == "o200k_base (tiktoken)"  # the dev extra installs litellm
    assert tokens("hello world") == 2
    # an estimate would say ceil(len / 4); the tokenizer reads whole words
    assert tokens(PROSE) != -(-len(PROSE) // 4)
    assert tokens(PROSE) < len(PROSE.split()) * 2


def test_without_the_vocabulary_file_counts_are_labelled_estimates(tmp_path: Path) -> None:
    tk = load([tmp_path])  # no file there: nothing is fetched
    assert tk is ESTIMATE and not tk.exact and "fallback" in tk.name
    assert tk.count("abcdefghi") == 3 and tk.head("abcdefghi", 2) == "abcdefgh"


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300), st.integers(min_value=0, max_value=40))
def test_head_is_a_prefix_within_the_budget(text: str, n: int) -> None:
    head = tokenizer().head(text, n)
    assert text.startswith(head)
    assert tokens(head) <= n


def test_clip_keeps_a_digest_within_its_budget_in_tokens() -> None:
    text = "\n".join(f"- 2026-03-0{i} {PROSE}" for i in range(1, 8))
    out = clip(text, 60)
    assert tokens(out) <= 60 and text.startswith(out)
    assert out.endswith(".")  # cut at the last whole line or sentence, not mid-word
    assert clip(PROSE, 500) == PROSE
