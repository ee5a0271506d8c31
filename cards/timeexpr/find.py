"""A time expression inside a question ("what did we do last weekend?", 上個月我們去了哪裡),
found and resolved by the rules that anchor writes, in the asker's day (DESIGN §5).
Recall uses it as `when` and scores the rest of the question as usual."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from .base import Interval, UnresolvableTime
from .english import NUMBER_WORDS
from .resolve import CJK, normalize, resolve

# A span is tried only if it starts and ends with one of these: most words of a
# question are not about time, and trying every span through dateparser would
# cost a few ms per word.
_EDGE_WORDS = frozenset("""
today yesterday tomorrow tonight week weekend month year ago last previous next this earlier day days weeks
months years morning afternoon evening night monday tuesday wednesday thursday friday saturday sunday
january february march april june july august september october november december mon tue wed thu fri sat
sun jan feb mar apr jun jul aug sep sept oct nov dec in the
""".split()) | frozenset(NUMBER_WORDS)
# Alone, these are words first: "may I", "march on", "sun".
_NOT_ALONE = frozenset({"may", "march", "sun", "sat", "wed", "mar", "the", "in", "this", "last", "next", "day"})
_CJK_TIME = re.compile(r"[天日周週星期礼禮拜月年晚早前后後今昨明去]")
_MAX_WORDS = 6
_MAX_CJK = 10


@dataclass(frozen=True)
class QueryTime:
    interval: Interval
    expression: str  # as found in the question
    rest: str  # the question without it


def time_in_query(text: str, *, reference: dt.datetime, tz: dt.tzinfo) -> QueryTime | None:
    """The longest, first time expression in `text` that the write path would
    resolve to a range (an instant such as "now" restricts nothing), or None."""
    return _chinese(text, reference, tz) if CJK.search(text) else _english(text, reference, tz)


def _range(expression: str, reference: dt.datetime, tz: dt.tzinfo) -> Interval | None:
    try:
        found = resolve(expression, reference=reference, tz=tz)
    except UnresolvableTime:
        return None
    return found if found.end is not None else None


def _english(text: str, reference, tz) -> QueryTime | None:
    words = list(re.finditer(r"[\w'/-]+", text))
    keys = [normalize(w.group()).strip("'") for w in words]
    for start in range(len(words)):
        if keys[start] not in _EDGE_WORDS and not keys[start][:1].isdigit():
            continue
        for end in range(min(len(words), start + _MAX_WORDS), start, -1):
            last = keys[end - 1]
            if last not in _EDGE_WORDS and not last[:1].isdigit():
                continue
            if end - start == 1 and last in _NOT_ALONE:
                continue
            expression = text[words[start].start():words[end - 1].end()]
            if (found := _range(expression, reference, tz)) is not None:
                rest = text[:words[start].start()] + text[words[end - 1].end():]
                return QueryTime(found, expression, " ".join(rest.split()))
    return None


def _chinese(text: str, reference, tz) -> QueryTime | None:
    for start in range(len(text)):
        if not _CJK_TIME.search(text[start:start + _MAX_CJK]):
            continue
        for end in range(min(len(text), start + _MAX_CJK), start + 1, -1):
            expression = text[start:end]
            if not _CJK_TIME.search(expression) or not CJK.search(expression):
                continue
            if (found := _range(expression, reference, tz)) is not None:
                return QueryTime(found, expression, (text[:start] + text[end:]).strip())
    return None
