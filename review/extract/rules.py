"""What a pattern rule is, and the small helpers the English and Chinese rules share."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from .when import when_in


@dataclass(frozen=True)
class Draft:
    """One proposal without its provenance; the extractor adds quote, message and rule."""

    kind: str
    label: str
    value: str = ""
    object: str | None = None
    tag: str = "fact"
    when: str | None = None
    text: str = ""
    subject: str = "me"


Build = Callable[[re.Match[str]], list[Draft]]


@dataclass(frozen=True)
class Rule:
    name: str
    regex: re.Pattern[str]
    build: Build


def rule(name: str, pattern: str, build: Build, flags: int = re.IGNORECASE) -> Rule:
    return Rule(name, re.compile(pattern, flags), build)


# Capitalised words, one or two: "Mei", "Sam Lee". Case matters even in case-blind rules.
NAME = r"(?-i:[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)"
CAPITALISED = r"(?-i:[A-Z0-9])"

_TRAILING = ".,!?;:…。，！？；：、\"'“”‘’()（） \t"
_FILLER_EN = re.compile(r"\s+(?:now|these\s+days|at\s+the\s+moment|currently|nowadays|too|as\s+well|a\s+lot|"
                        r"so\s+much|very\s+much|fluently|a\s+little|well)$", re.IGNORECASE)
_PARTICLES_ZH = re.compile(r"[了啦喔哦呢吧呀啊耶]+$")
# Where a single value stops: "Kyoto with my family", "Acme, a startup".
_CUT = re.compile(r"\s*(?:[,;]|\s(?:and|but|because|since|with|where|which|who|so)\s)", re.IGNORECASE)


def clean(value: str, when: str | None = None) -> str:
    """The value as said, without the time expression, fillers or trailing punctuation."""
    if when:
        value = value.replace(when, " ")
    value = re.sub(r"\s+", " ", value).strip(_TRAILING)
    previous = None
    while previous != value:
        previous = value
        value = _FILLER_EN.sub("", value)
        value = _PARTICLES_ZH.sub("", value).strip(_TRAILING)
    return value


def single(value: str, when: str | None = None) -> str:
    """A single value: cut at the first comma or connective."""
    return clean(_CUT.split(clean(value, when), maxsplit=1)[0])


def items(value: str, when: str | None = None) -> list[str]:
    """A list said in one breath: "English and Japanese", 中文和日文 → one value each."""
    parts = re.split(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s+or\s+|[、，和跟及與与])\s*", clean(value, when))
    return [part for part in (clean(p) for p in parts) if part]


def clause_when(m: re.Match[str]) -> str | None:
    return when_in(m.string)
