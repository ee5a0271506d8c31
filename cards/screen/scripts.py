"""Chinese is written once, in Traditional characters, and matched in both
scripts: OpenCC gives each character's Simplified form (and its Traditional
one, for the few words a list holds in Simplified), so a term is never kept
twice by hand."""

from __future__ import annotations

from functools import lru_cache

import opencc

_TO_SIMPLIFIED = opencc.OpenCC("t2s.json")
_TO_TRADITIONAL = opencc.OpenCC("s2t.json")


def _forms(char: str) -> str:
    forms = dict.fromkeys([char, _TO_SIMPLIFIED.convert(char), _TO_TRADITIONAL.convert(char)])
    return "".join(form for form in forms if len(form) == 1)


@lru_cache(maxsize=None)
def both_scripts(pattern: str) -> str:
    """`pattern` matching its words in either script: each Chinese character that
    OpenCC writes differently becomes a class of both forms ([積积]), inside a
    character class too, so a negative look-around (累(?![積計])) refuses both
    scripts. Converting character by character matches a text that mixes the
    scripts as well; regex syntax is ASCII and passes through untouched."""
    out, in_class, escaped = [], False, False
    for char in pattern:
        if escaped or char == "\\":
            escaped = not escaped and char == "\\"
            out.append(char)
            continue
        if char in "[]":
            in_class = char == "["
            out.append(char)
            continue
        forms = _forms(char) if ord(char) > 0x2E7F else char
        out.append(forms if len(forms) == 1 or in_class else f"[{forms}]")
    return "".join(out)


def simplified(text: str) -> str:
    return _TO_SIMPLIFIED.convert(text)


def traditional(text: str) -> str:
    return _TO_TRADITIONAL.convert(text)
