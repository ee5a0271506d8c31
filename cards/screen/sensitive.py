"""Sensitive content in any text: one pass of one compiled alternation over the
text in lower case (and a small pass, as written, for abbreviations such as
AIDS). Exemptions come first in the alternation, so where one starts at the
same place as a sensitive word ("Catholic university"), or earlier and covers
it ("star sign is Cancer"), the regex engine takes it and moves on; only a hit
is then named, by the category whose entries match it whole.

Speed: the alternation is filed by first letter and compiled without
IGNORECASE (the text is lowered once instead), which lets the engine skip a
branch on its first character; the Chinese entries are left out for ASCII
texts."""

from __future__ import annotations

import re

from .lexicon import CHINESE, ENGLISH, ENGLISH_CASED, EXEMPT_CASED, EXEMPT_CHINESE, EXEMPT_ENGLISH
from .scripts import both_scripts

CATEGORIES = tuple(ENGLISH)


def _leading_alternatives(pattern: str) -> list[str]:
    """`(?:a|b)rest` as [`arest`, `brest`] (once, at the top level), so each can be
    filed under its first letter; any other pattern as itself."""
    if not pattern.startswith("(?:"):
        return [pattern]
    depth, in_class, escaped, parts, start = 0, False, False, [], 3
    for at, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                rest = pattern[at + 1:]
                if rest[:1] in ("?", "*", "+", "{"):
                    return [pattern]  # an optional or repeated group opens nothing for certain
                return [part + rest for part in [*parts, pattern[start:at]]]
        elif char == "|" and depth == 1:
            parts.append(pattern[start:at])
            start = at + 1
    return [pattern]


def _by_first_letter(patterns: list[str]) -> str:
    """The entries as a one-level trie: those opening with a plain letter are filed
    under it (`c(?:ancers?|atholics?|…)`), so at each place the engine tries one
    branch per letter rather than every entry; order within a letter is kept, so
    an exemption still comes before the word it covers."""
    filed: dict[str, list[str]] = {}
    others = []
    for pattern in (expanded for whole in patterns for expanded in _leading_alternatives(whole)):
        first = pattern[:1]
        if first.isalnum() and pattern[1:2] not in ("?", "*", "+", "{"):
            filed.setdefault(first, []).append(pattern[1:])
        else:
            others.append(pattern)
    branches = [f"{first}(?:{'|'.join(rests)})" for first, rests in filed.items()]
    return "|".join([*branches, *others])


def _english(patterns: list[str]) -> str:
    return r"\b(?:" + _by_first_letter(patterns) + r")\b" if patterns else ""


def _chinese(patterns: list[str]) -> str:
    # Longest first, so 同性婚姻 is named whole rather than stopping at a shorter entry.
    return both_scripts(_by_first_letter(sorted(patterns, key=len, reverse=True))) if patterns else ""


def _either(*parts: str) -> str:
    return "|".join(part for part in parts if part)


def _entries(exempt: list[str], categories: dict[str, list[str]]) -> list[str]:
    return [*exempt, *(entry for name in CATEGORIES for entry in categories.get(name, []))]


class _Lexicon:
    """A scanner (every entry, exemptions first) and, to name a hit, each category's and the exemptions' own."""

    def __init__(self, *, english: dict[str, list[str]], exempt_english: list[str],
                 chinese: dict[str, list[str]] | None = None, exempt_chinese: list[str] = ()) -> None:
        chinese = chinese or {}
        self.scan = re.compile(_either(_english(_entries(exempt_english, english)),
                                       _chinese(_entries(list(exempt_chinese), chinese))))
        self.exempt = re.compile(_either(_english(exempt_english), _chinese(list(exempt_chinese))))
        self.named = [(name, re.compile(_either(_english(english.get(name, [])), _chinese(chinese.get(name, [])))))
                      for name in CATEGORIES if english.get(name) or chinese.get(name)]

    def category(self, words: str) -> str | None:
        if self.exempt.pattern and self.exempt.fullmatch(words):
            return None
        return next((name for name, pattern in self.named if pattern.fullmatch(words)), None)


_ENGLISH = _Lexicon(english=ENGLISH, exempt_english=EXEMPT_ENGLISH)
_EVERY = _Lexicon(english=ENGLISH, exempt_english=EXEMPT_ENGLISH, chinese=CHINESE, exempt_chinese=EXEMPT_CHINESE)
_CASED = _Lexicon(english=ENGLISH_CASED, exempt_english=EXEMPT_CASED)


def sensitive_match(text: str) -> tuple[str, str] | None:
    """(category, the words that matched) for the first sensitive mention in `text`, or None."""
    exempt: list[tuple[int, int]] = []
    cased = None
    for match in _CASED.scan.finditer(text):
        category = _CASED.category(match.group())
        if category is None:
            exempt.append(match.span())
        elif cased is None:
            cased = (category, match.group())
    folded = text.lower()
    lexicon = _ENGLISH if text.isascii() else _EVERY
    for match in lexicon.scan.finditer(folded):
        if any(s <= match.start() and match.end() <= e for s, e in exempt):
            continue
        category = lexicon.category(match.group())
        if category is not None:
            words = text[match.start():match.end()] if len(folded) == len(text) else match.group()
            return category, words
    return cased
