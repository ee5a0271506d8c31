"""The pieces every rule shares: the interval, the refusal, and calendar arithmetic.

Arithmetic is done on local calendar dates and only then turned into aware
datetimes in the caller's zone, so "yesterday" across a DST change is the 23-
or 25-hour local day, not "24 hours before midnight"."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from dateutil.relativedelta import relativedelta
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from core.errors import DomainError
from core.instants import EARLIEST_YEAR, LATEST_YEAR  # the range every entry point keeps (why: there)

from ..models import Precision, TimeSource

DATE_ORDERS = ("mdy", "dmy")

HINT = gettext_noop("Give an ISO date (2026-05-08) or datetime (2026-05-08T16:44:10+08:00), a written date "
                    "(8 May 2026, May 8, 2026), or a relative one (yesterday, last Friday, this weekend, 3 days ago, "
                    "上週, 昨天)")


class UnresolvableTime(DomainError):
    code = "unresolvable_time"


class Refusal(Exception):
    """Raised inside a rule that recognised the shape but must refuse; carries why."""


@dataclass(frozen=True)
class Interval:
    start: dt.datetime
    end: dt.datetime | None  # exclusive; None for an instant (a stated datetime)
    precision: str
    source: str


def unresolvable(expression: str, why: str | None = None) -> UnresolvableTime:
    words = {"expression": repr(expression), "why": why, "hint": _(HINT), "earliest": EARLIEST_YEAR,
             "latest": LATEST_YEAR}
    if why:
        detail = _("Cannot resolve %(expression)s to a date (%(why)s). %(hint)s; years between %(earliest)s and "
                   "%(latest)s.") % words
    else:
        detail = _("Cannot resolve %(expression)s to a date. %(hint)s; years between %(earliest)s and "
                   "%(latest)s.") % words
    return UnresolvableTime(detail, expression=expression)


@dataclass(frozen=True)
class Context:
    now: dt.datetime  # the reference time, aware, in `tz`
    tz: dt.tzinfo
    date_order: str
    # Any day expression, English or written (resolve.resolve_text): the base a rule
    # builds on ("yesterday evening", "May 8 at night"). Handed down by the resolver
    # so that the rules below it never import it.
    day: Callable[[str, Context], Interval | None]

    @property
    def today(self) -> dt.date:
        return self.now.date()


def at(day: dt.date, tz: dt.tzinfo, time: dt.time = dt.time()) -> dt.datetime:
    """The local wall time `time` on `day` in `tz`. A wall time inside a DST gap
    (some zones skip midnight) becomes the first instant that exists after it."""
    naive = dt.datetime.combine(day, time, tzinfo=tz)
    return naive.astimezone(dt.timezone.utc).astimezone(tz)


def span(first: dt.date, after: dt.date, ctx: Context, precision: str,
         source: str = TimeSource.RESOLVED) -> Interval:
    return Interval(at(first, ctx.tz), at(after, ctx.tz), precision, source)


def week_start(day: dt.date) -> dt.date:
    return day - dt.timedelta(days=day.weekday())  # weeks start on Monday


def day_of(day: dt.date, ctx: Context, source: str = TimeSource.RESOLVED) -> Interval:
    return span(day, day + dt.timedelta(days=1), ctx, Precision.DAY, source)


def week_of(day: dt.date, ctx: Context) -> Interval:
    first = week_start(day)
    return span(first, first + dt.timedelta(days=7), ctx, Precision.WEEK)


def month_of(day: dt.date, ctx: Context, source: str = TimeSource.RESOLVED) -> Interval:
    first = day.replace(day=1)
    return span(first, first + relativedelta(months=1), ctx, Precision.MONTH, source)


def year_of(year: int, ctx: Context, source: str = TimeSource.RESOLVED) -> Interval:
    return span(dt.date(year, 1, 1), dt.date(year + 1, 1, 1), ctx, Precision.YEAR, source)


def weekend_of(day: dt.date, ctx: Context) -> Interval:
    """Saturday and Sunday of the Monday-based week holding `day`. On a weekday that
    is the coming weekend; on Saturday or Sunday it is the one we are inside."""
    saturday = week_start(day) + dt.timedelta(days=5)
    return span(saturday, saturday + dt.timedelta(days=2), ctx, Precision.DAY)


def shifted(unit: str, n: int, ctx: Context) -> Interval:
    """The whole day/week/month/year that lies `n` units from today (negative: ago)."""
    today = ctx.today
    if unit == "day":
        return day_of(today + dt.timedelta(days=n), ctx)
    if unit == "week":
        return week_of(today + dt.timedelta(weeks=n), ctx)
    if unit == "month":
        return month_of(today.replace(day=1) + relativedelta(months=n), ctx)
    return year_of(today.year + n, ctx)


def hours(first: dt.date, from_hour: int, last: dt.date, to_hour: int, ctx: Context) -> Interval:
    return Interval(at(first, ctx.tz, dt.time(from_hour)), at(last, ctx.tz, dt.time(to_hour)),
                    Precision.DATETIME, TimeSource.RESOLVED)


# Parts of a day, as (start hour, end hour) with 24 meaning the next midnight and
# "night" running to 06:00 the next morning.
# The parts' names, as a refusal names them.
PART_NAMES = (gettext_noop("morning"), gettext_noop("afternoon"), gettext_noop("evening"), gettext_noop("night"))
PARTS = {"morning": (6, 12), "afternoon": (12, 18), "evening": (18, 24), "night": (18, 30)}


def part_of(day_interval: Interval, part: str, ctx: Context) -> Interval:
    """Narrow a resolved single day to a part of it ("yesterday evening", 週五晚上)."""
    day = day_interval.start.astimezone(ctx.tz).date()
    if day_interval.precision != Precision.DAY or day_interval.end != at(day + dt.timedelta(days=1), ctx.tz):
        raise Refusal(_("a %(part)s belongs to a single day") % {"part": _(part)})
    begin, finish = PARTS[part]
    return hours(day, begin, day + dt.timedelta(days=finish // 24), finish % 24, ctx)


def latest_date(month: int, day: int, ctx: Context) -> dt.date:
    """A day and month without a year: the most recent one not after today (29 Feb
    looks back to the last leap year). Memories are mostly about the past."""
    for year in range(ctx.today.year, ctx.today.year - 9, -1):
        try:
            candidate = dt.date(year, month, day)
        except ValueError:
            continue
        if candidate <= ctx.today:
            return candidate
    raise Refusal(_("there is no day %(day)s in month %(month)s") % {"day": day, "month": month})


def latest_month(month: int, ctx: Context, *, strictly_before: bool = False) -> dt.date:
    """A month name without a year: the most recent such month, this one included
    unless `strictly_before` ("last March" said in March is a year ago)."""
    year = ctx.today.year
    if month > ctx.today.month or (strictly_before and month == ctx.today.month):
        year -= 1
    return dt.date(year, month, 1)


def in_range(interval: Interval, ctx: Context) -> bool:
    start = interval.start.astimezone(ctx.tz)
    end = interval.end.astimezone(ctx.tz) if interval.end else start
    return EARLIEST_YEAR <= start.year <= LATEST_YEAR and end.year <= LATEST_YEAR + 1
