"""Token counts for the budgets (a digest's, the primer's): the count an LLM's tokenizer
gives, not characters / 4.

The tokenizer is OpenAI's ``o200k_base`` (the GPT-4o family's) through ``tiktoken``, its
vocabulary read from a file already on this machine: the one the ``llm`` extra's ``litellm``
package ships (or ``TIKTOKEN_CACHE_DIR`` when the user keeps it there). Nothing is fetched:
when neither ``tiktoken`` nor the file is installed (an install without the ``llm`` extra),
counts fall back to characters / 4 and :func:`tokenizer` says so (``exact`` is False). Other
models count differently (Claude's tokenizer is not public): a budget is a count in this
tokenizer, said beside every figure."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ENCODING = "o200k_base"
_URL = f"https://openaipublic.blob.core.windows.net/encodings/{ENCODING}.tiktoken"
CHARS_PER_TOKEN = 4  # the fallback's estimate
FALLBACK = "characters / 4 (fallback: no tokenizer installed)"
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Tokenizer:
    name: str  # what counted: "o200k_base (tiktoken)" or the fallback's label
    exact: bool  # False: characters / 4
    count: Callable[[str], int]
    head: Callable[[str, int], str]  # the longest prefix of a text within n tokens


def _estimate(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def _estimate_head(text: str, n: int) -> str:
    return text[: max(n, 0) * CHARS_PER_TOKEN]


ESTIMATE = Tokenizer(name=FALLBACK, exact=False, count=_estimate, head=_estimate_head)


def vocabulary_dirs() -> list[Path]:
    """Where a vocabulary file may already be: the user's tiktoken cache, then litellm's
    bundled copy (found without importing litellm, which costs seconds)."""
    dirs = []
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        dirs.append(Path(os.environ["TIKTOKEN_CACHE_DIR"]))
    spec = importlib.util.find_spec("litellm")
    if spec is not None and spec.origin:
        dirs.append(Path(spec.origin).parent / "litellm_core_utils" / "tokenizers")
    return dirs


def load(dirs: list[Path]) -> Tokenizer:
    """The o200k tokenizer from the first of ``dirs`` that holds its file, else the
    estimate."""
    try:
        import tiktoken
    except ImportError:
        return ESTIMATE
    key = hashlib.sha1(_URL.encode()).hexdigest()  # tiktoken's own cache file name
    found = next((d for d in dirs if (d / key).is_file()), None)
    if found is None:
        return ESTIMATE
    with _LOCK:  # tiktoken reads its cache directory from the environment, only there
        before = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = str(found)
        try:
            enc = tiktoken.get_encoding(ENCODING)
        except Exception:  # a damaged file (tiktoken checks its hash): never fetch, estimate
            return ESTIMATE
        finally:
            if before is None:
                os.environ.pop("TIKTOKEN_CACHE_DIR", None)
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = before

    def count(text: str) -> int:
        return len(enc.encode_ordinary(text))

    def head(text: str, n: int) -> str:
        ids = enc.encode_ordinary(text)
        if len(ids) <= n:
            return text
        k = max(n, 0)
        while True:  # a character split between two tokens is left out (U+FFFD)
            cut = enc.decode(ids[:k]).rstrip("\ufffd")
            if k == 0 or count(cut) <= n:  # read again, the words may pair differently
                return cut
            k -= 1

    return Tokenizer(name=f"{ENCODING} (tiktoken)", exact=True, count=count, head=head)


@functools.cache
def tokenizer() -> Tokenizer:
    """The tokenizer budgets are counted in, loaded once."""
    return load(vocabulary_dirs())


def tokens(text: str) -> int:
    """Tokens of ``text`` in :func:`tokenizer`."""
    return tokenizer().count(text)
