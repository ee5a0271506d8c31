"""A time expression inside a question ("what did we do last weekend?", 上個月我們去了哪裡),
found and resolved by the rules that anchor writes, in the asker's day (DESIGN §5).
Recall uses it as `when` and scores the rest of the question as usual."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace

from .base import Interval, UnresolvableTime
from .english import NUMBER_WORDS
from ..text import CJK
from .resolve import normalize, resolve

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
    # The range begins after the question was asked ("next week", 明年): what is planned
    # for it is as often a state or a note ("the offsite is in Porto") as an event.
    ahead: bool = False


# A question about what recurs ("what does Kai do every Thursday?", 爷爷周末一般去干嘛)
# asks about no one range: its time words are part of what it asks, not a when.
_HABITUAL_EN = re.compile(r"\b(usually|every|each|always|often|normally|typically|generally|mondays|tuesdays|"
                          r"wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays)\b", re.IGNORECASE)
_HABITUAL_ZH = re.compile(r"每|通常|一般|平时|平時|平常|经常|經常|总是|總是|常常|成日")
# A bare day of the week in Chinese (周四, 星期一, 礼拜五, 周末) with no 上/下/这/本 before it
# and no 了/过 (it happened) after: the day as it recurs, "on Thursdays".
_BARE_DAY_ZH = re.compile(r"(?<![上下这這本今])(周|週|星期|礼拜|禮拜)[一二三四五六日天末]")
_DONE_ZH = re.compile(r"[了过過]")


def time_in_query(text: str, *, reference: dt.datetime, tz: dt.tzinfo) -> QueryTime | None:
    """The longest, first time expression in `text` that the write path would
    resolve to a range (an instant such as "now" restricts nothing), or None —
    also when the question asks about what recurs."""
    found = _found(text, reference, tz)
    return None if found is None else replace(found, ahead=found.interval.start > reference)


def _found(text: str, reference: dt.datetime, tz: dt.tzinfo) -> QueryTime | None:
    if CJK.search(text):
        if _HABITUAL_ZH.search(text) or _HABITUAL_EN.search(text):
            return None
        found = _chinese(text, reference, tz)
        if found is not None and _BARE_DAY_ZH.match(found.expression) and not _DONE_ZH.search(text):
            return None
        return found
    return None if _HABITUAL_EN.search(text) else _english(text, reference, tz)


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
        if text[start].isspace() or not _CJK_TIME.search(text[start:start + _MAX_CJK]):
            continue
        for end in range(min(len(text), start + _MAX_CJK), start + 1, -1):
            expression = text[start:end]
            if not _CJK_TIME.search(expression) or not CJK.search(expression):
                continue
            if (found := _range(expression, reference, tz)) is not None:
                return QueryTime(found, expression.strip(), _joined(text[:start], text[end:]))
    return None


def _joined(left: str, right: str) -> str:
    """The question without its time words: Chinese closes up, other words keep a space
    ("Dana 今年買了" → "Dana 買了", 我昨天跟誰 → 我跟誰)."""
    left, right = left.rstrip(), right.lstrip()
    apart = left and right and not (CJK.match(left[-1]) and CJK.match(right[0]))
    return (left + (" " if apart else "") + right).strip()
