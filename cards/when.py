"""Turning a `when` into an absolute interval. Absolute ISO dates and datetimes
are resolved here; relative expressions ("yesterday", 上週) arrive with the time
module and until then are refused as unresolvable — never guessed."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from .errors import DomainError
from .models import Precision, TimeSource


class UnresolvableTime(DomainError):
    code = "unresolvable_time"


@dataclass(frozen=True)
class Interval:
    start: dt.datetime
    end: dt.datetime | None
    precision: str
    source: str


# Python dates end at year 9999 and PostgreSQL timestamps begin at year 1 (UTC):
# a day's end, a local day around an instant or a time zone shift near either
# edge would overflow, so times this far out are refused, never stored.
EARLIEST_YEAR, LATEST_YEAR = 2, 9998


def _unresolvable(expression: str) -> UnresolvableTime:
    return UnresolvableTime(
        f"Cannot resolve {expression!r} to a date; give an ISO date (2026-05-08) or datetime "
        f"(2026-05-08T16:44:10+08:00) between the years {EARLIEST_YEAR} and {LATEST_YEAR}.",
        expression=expression)


def when_resolve(expression: str, *, reference: dt.datetime, tz: dt.tzinfo) -> Interval:
    text = expression.strip()
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        day = None
    if day is not None:
        if not EARLIEST_YEAR <= day.year <= LATEST_YEAR:
            raise _unresolvable(expression)
        start = dt.datetime.combine(day, dt.time(), tzinfo=tz)
        end = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), tzinfo=tz)
        return Interval(start, end, Precision.DAY, TimeSource.STATED)
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        raise _unresolvable(expression) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=tz)
    if not EARLIEST_YEAR <= moment.year <= LATEST_YEAR:
        raise _unresolvable(expression)
    return Interval(moment, None, Precision.DATETIME, TimeSource.STATED)
