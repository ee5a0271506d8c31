"""English relative expressions: today, last Friday, 3 days ago, this weekend, in March…

Each rule is a full-match regex on the normalised text and a function building
the interval; the first rule that matches wins, so more specific ones go first."""

from __future__ import annotations

import datetime as dt
import re

from ..models import Precision, TimeSource
from .base import (
    Context, Interval, Refusal, at, day_of, hours, latest_month, month_of, part_of, shifted, week_start, weekend_of,
    year_of,
)

NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
}
WEEKDAYS = {
    "monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2, "thursday": 3,
    "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4, "saturday": 5, "sat": 5, "sunday": 6, "sun": 6,
}
MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
    "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sep": 9, "sept": 9,
    "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}
DAY_WORDS = {"today": 0, "yesterday": -1, "tomorrow": 1, "the day before yesterday": -2,
             "day before yesterday": -2, "the day after tomorrow": 2, "day after tomorrow": 2}
# "last" and "previous" look back, "next" ahead, "this" stays. ("this coming" is left
# out: for a weekday it means the next one, for a weekend the current one.)
DIRECTION = {"last": -1, "previous": -1, "this": 0, "next": 1}


def _alternatives(words) -> str:
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


N = rf"(?P<n>[0-9]{{1,5}}|{_alternatives(NUMBER_WORDS)})"
UNIT = r"(?P<unit>day|week|month|year)s?"
WEEKDAY = rf"(?P<wd>{_alternatives(WEEKDAYS)})\.?"
MONTH = rf"(?P<month>{_alternatives(MONTHS)})\.?"
DIR = rf"(?P<dir>{_alternatives(DIRECTION)})"


def number(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[text]


def _now(m, ctx):
    return Interval(ctx.now, None, Precision.DATETIME, TimeSource.RESOLVED)


def _tonight(m, ctx):  # DESIGN §5: tonight is today 18:00 until midnight
    return hours(ctx.today, 18, ctx.today + dt.timedelta(days=1), 0, ctx)


def _last_night(m, ctx):  # yesterday 18:00 until 06:00 this morning
    return hours(ctx.today - dt.timedelta(days=1), 18, ctx.today, 6, ctx)


def _this_part(m, ctx):
    return part_of(day_of(ctx.today, ctx), m["part"], ctx)


def _earlier(m, ctx):
    """From the start of the unit until the reference time (exclusive)."""
    unit = m["unit"] or "day"
    first = {"day": ctx.today, "week": week_start(ctx.today), "month": ctx.today.replace(day=1),
             "year": ctx.today.replace(month=1, day=1)}[unit]
    start = at(first, ctx.tz)
    if ctx.now <= start:
        raise Refusal(f"nothing of this {unit} lies before the reference time")
    return Interval(start, ctx.now, Precision(unit), TimeSource.RESOLVED)


def _day_word(m, ctx):
    return day_of(ctx.today + dt.timedelta(days=DAY_WORDS[m["word"]]), ctx)


def _ago(m, ctx):
    return shifted(m["unit"], -number(m["n"]), ctx)


def _ahead(m, ctx):
    return shifted(m["unit"], number(m["n"]), ctx)


def _relative_unit(m, ctx):
    step = DIRECTION[m["dir"]]
    if m["unit"] == "weekend":
        return weekend_of(ctx.today + dt.timedelta(weeks=step), ctx)
    return shifted(m["unit"], step, ctx)


def _this_weekend(m, ctx):
    return weekend_of(ctx.today, ctx)


def _weekday(m, ctx):
    """Plain: the most recent one, today included. last/next: the nearest one strictly
    before/after today. this: the one in the current Monday-based week."""
    target, today = WEEKDAYS[m["wd"]], ctx.today
    step = DIRECTION[m["dir"]] if m["dir"] else None
    if step is None:
        day = today - dt.timedelta(days=(today.weekday() - target) % 7)
    elif step < 0:
        day = today - dt.timedelta(days=(today.weekday() - target - 1) % 7 + 1)
    elif step > 0:
        day = today + dt.timedelta(days=(target - today.weekday() - 1) % 7 + 1)
    else:
        day = week_start(today) + dt.timedelta(days=target)
    return day_of(day, ctx)


def _month(m, ctx):
    """March 2025 is stated; a bare March is the most recent one (this month included);
    last March the one before this month; this March this year's; next March the coming one."""
    groups = m.groupdict()  # two patterns share this builder; each has only some groups
    month = MONTHS[groups["month"]]
    if groups.get("year"):
        return month_of(dt.date(int(groups["year"]), month, 1), ctx, TimeSource.STATED)
    step = DIRECTION[groups["dir"]] if groups.get("dir") else None
    if step is None:
        first = latest_month(month, ctx)
    elif step < 0:
        first = latest_month(month, ctx, strictly_before=True)
    elif step > 0:
        year = ctx.today.year + (1 if month <= ctx.today.month else 0)
        first = dt.date(year, month, 1)
    else:
        first = dt.date(ctx.today.year, month, 1)
    return month_of(first, ctx)


def _year(m, ctx):
    return year_of(int(m["year"]), ctx, TimeSource.STATED)


def _part_of_day(m, ctx):
    base = ctx.day(m["base"], ctx)  # the base may be any day expression, English or written
    return part_of(base, m["part"], ctx) if base else None


RULES = [(re.compile(pattern), build) for pattern, build in [
    (r"(?:right )?now", _now),
    (r"tonight", _tonight),
    (r"last night", _last_night),
    (r"this (?P<part>morning|afternoon|evening)", _this_part),
    (r"earlier (?:today|this (?P<unit>week|month|year))", _earlier),
    (rf"(?P<word>{_alternatives(DAY_WORDS)})", _day_word),
    (rf"{N} {UNIT} ago", _ago),
    (rf"in {N} {UNIT}", _ahead),
    (rf"{N} {UNIT} from now", _ahead),
    (rf"{DIR} (?P<unit>week|month|year|weekend)", _relative_unit),
    (r"(?:the )?weekend", _this_weekend),
    (rf"(?:{DIR} )?{WEEKDAY}", _weekday),
    (rf"(?:in )?(?:{DIR} )?{MONTH}", _month),
    (rf"(?:in )?{MONTH},? (?:of )?(?P<year>[0-9]{{4}})", _month),
    (r"(?:in )?(?:the year )?(?P<year>[0-9]{4})", _year),
    # Last, so "last night" and "this morning" above keep their own meaning.
    (r"(?P<base>.+?),? (?:in the |at )?(?P<part>morning|afternoon|evening|night)", _part_of_day),
]]


def resolve_english(text: str, ctx: Context) -> Interval | None:
    for pattern, build in RULES:
        if m := pattern.fullmatch(text):
            return build(m, ctx)
    return None
