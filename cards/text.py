"""Text normalisation shared by names, aliases and values."""

import re
import unicodedata

_SPACES = re.compile(r"\s+")


def normalize(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed, trailing full stops dropped:
    "  Kyoto. " and "kyoto" are the same value; "巴黎" and "Paris" are not."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SPACES.sub(" ", folded).strip().rstrip(".。").strip()
