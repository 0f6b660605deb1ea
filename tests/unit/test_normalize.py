import pytest

from memvault.errors import InvalidInputError
from memvault.ingest.normalize import TRUNCATION_MARKER, normalize_content


def test_whitespace_controls_and_newlines_are_normalised() -> None:
    text, cut = normalize_content("  Hello\t\t world\r\n\r\n\r\n\x00next\x07 line  ", limit=100)
    assert text == "Hello world\n\nnext line"
    assert cut is False


def test_unicode_is_nfc() -> None:
    text, _ = normalize_content("Cafe\u0301", limit=100)
    assert text == "Caf\u00e9"


@pytest.mark.parametrize("raw", ["", "   ", "\x00\x01", "\n\n\t"])
def test_empty_is_refused(raw: str) -> None:
    with pytest.raises(InvalidInputError, match="empty"):
        normalize_content(raw, limit=100)


def test_non_utf8_bytes_name_the_offset() -> None:
    with pytest.raises(InvalidInputError, match="byte 3"):
        normalize_content(b"abc\xff", limit=100)


def test_lone_surrogates_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="surrogate"):
        normalize_content("bad \ud800 text", limit=100)


def test_truncation_keeps_words_and_says_how_much_was_cut() -> None:
    words = " ".join(f"word{i}" for i in range(100))
    text, cut = normalize_content(words, limit=200)
    assert cut is True
    head, marker = text.split(TRUNCATION_MARKER)
    assert len(head) <= 200 and head.endswith(tuple("0123456789"))
    assert int(marker.split()[0]) == len(words) - len(head)
