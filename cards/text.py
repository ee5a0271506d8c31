"""Text rules, in one place: what text may enter, and how names compare.

On the way in (DESIGN §9: names are what they look like)
- every text is NFC-normalised ("e" + U+0301 is "é");
- a name — an entity's, an alias, a card's subject or object, a label — is
  refused (`invalid_text`) when it holds a character that is invisible or
  steers the text's direction: controls (Cc), format characters (Cf: zero-width
  space, joiners, bidi controls, …), line and paragraph separators (Zl, Zp) and
  every Default_Ignorable_Code_Point (variation selectors, fillers, tags).
  "Pa\\u200bris", "Paris\\u200d" and "\\u202eParis" are not new names; a joiner
  stays only where it visibly shapes the letters around it (RFC 5892's CONTEXTJ:
  after a virama, or Persian ZWNJ between joining letters);
- values and free text keep what real text needs (emoji joined by ZWJ, Arabic,
  Hebrew, Persian's ZWNJ, direction marks) but lose the bidi embedding, override
  and isolate controls (U+202A–U+202E, U+2066–U+2069), which make text read
  differently from how it is stored.

How names compare
- `normalize`: NFKC, case-folded, spaces collapsed — the key exact binding uses;
- `name_skeleton`: Unicode TR39's skeleton (ICU's spoof checker) of that key:
  "Pаris" with a Cyrillic а and "Paris" share one, so a look-alike of an
  existing name binds only through a registered alias, never as a new entity
  (cards.selectors.entities, cards.services.entities).
"""

from __future__ import annotations

import re
import unicodedata

import icu
from django.core.exceptions import ValidationError

from .errors import InvalidText

# Han characters (CJK Unified Ideographs and Extension A): what marks text as Chinese for the rules
# that read English and Chinese apart (time words, extraction, signals).
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK = re.compile(f"[{HAN}]")


def chinese_in(text: str) -> bool:
    return CJK.search(text) is not None

_SPACES = re.compile(r"\s+")

ZWNJ, ZWJ = "\u200c", "\u200d"
VIRAMA = 9  # canonical combining class

# Embedding, override and isolate controls: stripped from values and free text.
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_BIDI_CONTROLS = re.compile(f"[{BIDI_CONTROLS}]")


def _character_class(pattern: str, *, leave: str = "") -> re.Pattern:
    """A regular expression matching ICU's UnicodeSet `pattern` (Unicode
    properties from the ICU this process links), less the characters in `leave`."""
    found = icu.UnicodeSet(pattern)
    for char in leave:
        found.remove(char)
    ranges, start, previous = [], None, None
    for char in found:
        point = ord(char)
        if start is None:
            start = previous = point
        elif point == previous + 1:
            previous = point
        else:
            ranges.append((start, previous))
            start = previous = point
    if start is not None:
        ranges.append((start, previous))
    return re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges) + "]")


# Never in a name: what is invisible or steers direction. The joiners are judged by their context.
_REFUSED_IN_NAMES = _character_class("[[:Cc:][:Cf:][:Zl:][:Zp:][:Default_Ignorable_Code_Point:]]",
                                     leave=ZWNJ + ZWJ)

def _joining_types(*short_names: str) -> set[int]:
    return {icu.Char.getPropertyValueEnum(icu.UProperty.JOINING_TYPE, name) for name in short_names}


# RFC 5892 A.1: a ZWNJ shapes its word between (L|D) T* and T* (R|D).
_JOINS_BEFORE, _JOINS_AFTER = _joining_types("L", "D"), _joining_types("R", "D")
(_TRANSPARENT,) = _joining_types("T")

_SPOOF = icu.SpoofChecker()


def normalize(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed, trailing full stops dropped:
    "  Kyoto. " and "kyoto" are the same value; "巴黎" and "Paris" are not."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SPACES.sub(" ", folded).strip().rstrip(".。").strip()


def text_in(text: str) -> str:
    """A value or free text as it is stored: NFC, without bidi embedding, override or isolate controls."""
    return _BIDI_CONTROLS.sub("", unicodedata.normalize("NFC", text))


def _joining_type(char: str) -> int:
    return icu.Char.getIntPropertyValue(char, icu.UProperty.JOINING_TYPE)


def _joiner_shapes(text: str, at: int) -> bool:
    """RFC 5892 CONTEXTJ: a ZWJ or ZWNJ after a virama, or a ZWNJ between a
    letter joining to the right and one joining to the left (transparent marks
    between), changes how the word is drawn; anywhere else it is invisible."""
    if at > 0 and unicodedata.combining(text[at - 1]) == VIRAMA:
        return True
    if text[at] != ZWNJ:
        return False
    before = at - 1
    while before >= 0 and _joining_type(text[before]) == _TRANSPARENT:
        before -= 1
    after = at + 1
    while after < len(text) and _joining_type(text[after]) == _TRANSPARENT:
        after += 1
    return (before >= 0 and after < len(text) and _joining_type(text[before]) in _JOINS_BEFORE
            and _joining_type(text[after]) in _JOINS_AFTER)


def _refused_at(text: str) -> list[int]:
    """Positions of the characters a name may not hold."""
    found = [match.start() for match in _REFUSED_IN_NAMES.finditer(text)]
    if ZWJ in text or ZWNJ in text:
        found += [at for at, char in enumerate(text) if char in (ZWJ, ZWNJ) and not _joiner_shapes(text, at)]
    return sorted(found)


def _described(char: str) -> str:
    return f"U+{ord(char):04X} {unicodedata.name(char, 'unnamed')}"


def name_problem(text: str) -> str | None:
    """Why `text` (NFC) cannot be a name, or None."""
    refused = _refused_at(text)
    if not refused:
        return None
    shown = ", ".join(dict.fromkeys(_described(text[at]) for at in refused))
    return f"holds invisible or direction-control characters: {shown}"


def names_in(**names: str) -> dict[str, str]:
    """Each name (keyword: the field it came in) NFC-normalised; one refusal
    naming every field that holds an invisible or bidi control character."""
    cleaned = {field: unicodedata.normalize("NFC", text) for field, text in names.items()}
    problems = {field: [problem] for field, text in cleaned.items() if (problem := name_problem(text))}
    if problems:
        said = "; ".join(f"{field} {problem[0]}" for field, problem in problems.items())
        raise InvalidText(f"A name must read as it looks, and {said}. Remove them and send the name as it reads.",
                          fields=problems)
    return cleaned


def name_in(text: str, *, field: str = "name") -> str:
    """One name on the way in: NFC, or refused with `invalid_text` naming `field`."""
    return names_in(**{field: text})[field]


def name_visible(text: str) -> str:
    """A name taken out of free text (an extracted candidate's subject): NFC,
    with what a name may not hold dropped, so it binds as it reads."""
    text = unicodedata.normalize("NFC", text)
    refused = set(_refused_at(text))
    return "".join(char for at, char in enumerate(text) if at not in refused) if refused else text


_DEFAULT_IGNORABLE = _character_class("[:Default_Ignorable_Code_Point:]")


def name_skeleton(text: str) -> str:
    """TR39 skeleton of the name's exact-binding key: equal for names that look
    alike ("Pаris" with a Cyrillic а, "Paris"). Default-ignorables go first, so
    a name stored before they were refused still meets its visible twin."""
    key = normalize(_DEFAULT_IGNORABLE.sub("", text))
    return _SPOOF.getSkeleton(0, key) if key else ""


def name_validator(value: str) -> None:
    """The name rule for model fields (the admin's forms run it)."""
    problem = name_problem(unicodedata.normalize("NFC", value or ""))
    if problem:
        raise ValidationError(f"This name {problem}.", code="invalid_text")
