"""Finding a time expression inside a clause, kept exactly as said ("last Saturday",
上週六). Only shapes that cards.time.when.when_resolve understands are recognised,
so every `when` an extractor emits can be resolved later against the message's
timestamp; a bare weekday or month is left alone ("Saturday's game", "I may")."""

from __future__ import annotations

import re

_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_NUMBER = r"(?:\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_PART = r"(?:\s+(?:morning|afternoon|evening|night))?"

ENGLISH = re.compile(
    r"(?<![\w'’])(?:"
    rf"the\s+day\s+before\s+yesterday|yesterday{_PART}|tomorrow{_PART}|today|tonight|last\s+night|earlier\s+today"
    r"|this\s+(?:morning|afternoon|evening)"
    rf"|(?:last|this|next)\s+(?:week|month|year|weekend|{_WEEKDAYS}|{_MONTHS})"
    rf"|{_NUMBER}\s+(?:days?|weeks?|months?|years?)\s+ago"
    rf"|on\s+(?:{_WEEKDAYS})"
    rf"|in\s+(?:{_MONTHS})(?:\s+\d{{4}})?|in\s+\d{{4}}"
    r")(?![\w'’])",
    re.IGNORECASE)

_ZH_WEEK = r"(?:週|周|星期|禮拜|礼拜)"
_ZH_STEP = r"(?:上個|上个|這個|这个|下個|下个|上|這|这|本|下)"
_ZH_PART = r"(?:早上|上午|下午|晚上)?"
CHINESE = re.compile(
    rf"(?:大前天|前天|昨天|今天|明天){_ZH_PART}|昨晚|今晚|今早"
    rf"|{_ZH_STEP}?{_ZH_WEEK}[一二三四五六日天末]"
    rf"|{_ZH_STEP}{_ZH_WEEK}"
    r"|(?:上個|上个|這個|这个|下個|下个|上|本|下)月|去年|前年|今年"
    rf"|[0-9一二三四五六七八九十兩两]{{1,3}}(?:天|個月|个月|年|{_ZH_WEEK}|個星期|个星期)(?:以前|之前|前)")


def when_in(text: str) -> str | None:
    """The first time expression in `text`, as written, or None."""
    found = [m for m in (ENGLISH.search(text), CHINESE.search(text)) if m]
    if not found:
        return None
    return min(found, key=lambda m: m.start()).group(0)
