"""Absolute written dates: 5/8/2023 (in the caller's date order), 05/2023, and
dates with an English month name (8 May 2023, May 8, the 3rd of March at 5pm).

Month-name dates go through dateparser, which knows the spellings, ordinals and
times; its answer is then checked against the text, because on its own it
silently repairs what it should refuse (see `_check`). Numeric dates are parsed
here: dateparser swaps day and month when the caller's order gives no valid
date ("31/12/2026" in month-first order), which is a guess."""

from __future__ import annotations

import datetime as dt
import re

from babel.dates import get_day_names
from django.utils.translation import gettext as _

from core.dates import babel_locale, date_shown

from ..models import Precision, TimeSource
from .base import Context, Interval, Refusal, at, day_of, latest_date, latest_month, month_of
from .english import MONTHS, WEEKDAYS

NUMERIC = re.compile(r"(?P<a>[0-9]{1,2})(?P<sep>[/.-])(?P<b>[0-9]{1,2})(?:(?P=sep)(?P<year>[0-9]+))?")
MONTH_YEAR = re.compile(r"(?P<month>[0-9]{1,2})/(?P<year>[0-9]{4})|(?P<iso_year>[0-9]{4})-(?P<iso_month>[0-9]{2})")
# Clock times inside a written date; their digits are not a day or a year.
CLOCK = re.compile(r"[0-9]{1,2}(?::[0-9]{2}){1,2}(?:\s*[ap]\.?m\.?)?|[0-9]{1,2}\s*[ap]\.?m\.?")
ORDER_NAMES = {"mdy": "month/day/year", "dmy": "day/month/year"}


def resolve_numeric(text: str, ctx: Context) -> Interval | None:
    if m := MONTH_YEAR.fullmatch(text):
        month, year = int(m["month"] or m["iso_month"]), int(m["year"] or m["iso_year"])
        if not 1 <= month <= 12:
            raise Refusal(_("there is no month %(month)s") % {"month": month})
        return month_of(dt.date(year, month, 1), ctx, TimeSource.STATED)
    m = NUMERIC.fullmatch(text)
    if m is None or (m["year"] is None and m["sep"] != "/"):  # "5.8" alone reads as a decimal
        return None
    first, second = int(m["a"]), int(m["b"])
    month, day = (first, second) if ctx.date_order == "mdy" else (second, first)
    if m["year"] is not None and len(m["year"]) != 4:
        raise Refusal(_("write the year in full, e.g. 2023"))  # 23 could be 1923 or 2023
    try:
        if m["year"] is not None:
            return day_of(dt.date(int(m["year"]), month, day), ctx, TimeSource.STATED)
        dt.date(2000, month, day)  # a leap year: only checks that the day exists at all
    except ValueError:
        raise Refusal(_("%(text)s is not a date in %(order)s order")
                      % {"text": text, "order": ORDER_NAMES[ctx.date_order]}) from None
    return day_of(latest_date(month, day, ctx), ctx)


def resolve_written(text: str, ctx: Context) -> Interval | None:
    words = re.findall(r"[a-z]+", text)
    if not any(word in MONTHS for word in words):
        return None  # without a month name dateparser reads "the 8th" as August, "8 2023" as a month
    numbers = re.findall(r"[0-9]+", CLOCK.sub(" ", text))
    years = [int(n) for n in numbers if len(n) == 4]
    days = [int(n) for n in numbers if len(n) <= 2]
    if len(days) > 1:  # "May 8 23": a short year, or a bare hour
        raise Refusal(_("write the year in full (2023) and a time with am/pm or minutes (5pm, 17:00)"))
    if len(years) + len(days) != len(numbers) or len(years) > 1:
        return None
    found = _dateparser(text)
    if found is None:
        return None
    moment, period = found
    _check(moment, period, days, years)
    # A year in the text makes the date stated; without one we pick the most recent.
    source = TimeSource.STATED if years else TimeSource.RESOLVED
    if period == "month":
        first = moment.date().replace(day=1) if years else latest_month(moment.month, ctx)
        return month_of(first, ctx, source)
    day = moment.date() if years else latest_date(moment.month, moment.day, ctx)
    _check_weekday(words, day)
    if period == "day":
        return day_of(day, ctx, source)
    if moment.tzinfo is not None:  # "5pm EST": the instant the text names
        return Interval(dt.datetime.combine(day, moment.timetz()), None, Precision.DATETIME, source)
    return Interval(at(day, ctx.tz, moment.time()), None, Precision.DATETIME, source)


def _dateparser(text: str) -> tuple[dt.datetime, str] | None:
    # Imported on first use: loading its language data costs a few hundred ms.
    from dateparser.date import DateDataParser

    # English only: Chinese dates have their own rules. Absolute parsing only:
    # relative words are ours. The base is a leap year so that a bare 29 Feb
    # parses; the year of a date written without one is chosen in latest_date.
    parser = DateDataParser(languages=["en"], settings={
        "PARSERS": ["absolute-time"], "RETURN_TIME_AS_PERIOD": True,
        "RELATIVE_BASE": dt.datetime(2024, 1, 1), "PREFER_DATES_FROM": "current_period"})
    data = parser.get_date_data(text)
    if data.date_obj is None or data.period not in ("day", "month", "time"):
        return None  # e.g. "part_of_day" for "May 8 in the morning": our day parts handle that
    return data.date_obj, data.period


def _check(moment: dt.datetime, period: str, days: list[int], years: list[int]) -> None:
    """Every number in the text must be the day or the year dateparser returned: it
    reads "March 32" as March 1932 and would move a bare 29 Feb to a leap year."""
    if years and moment.year != years[0]:
        raise Refusal(_("the year %(year)s was not understood") % {"year": years[0]})
    if period == "month" and days:
        raise Refusal(_("the day %(day)s was not understood") % {"day": days[0]})
    if period != "month" and (not days or moment.day != days[0]):
        raise Refusal(_("give the day of the month as a number"))
    if moment.tzinfo is not None and period != "time":
        raise Refusal(_("a time zone only goes with a time of day"))


def _check_weekday(words: list[str], day: dt.date) -> None:
    """dateparser ignores a weekday that contradicts the date ("Tuesday 8 May 2023", a Monday)."""
    for word in words:
        if word in WEEKDAYS and WEEKDAYS[word] != day.weekday():
            names = get_day_names("wide", locale=babel_locale())
            raise Refusal(_("%(day)s is a %(weekday)s, not a %(said)s")
                          % {"day": date_shown(day, zone=None), "weekday": names[day.weekday()],
                             "said": names[WEEKDAYS[word]]})
