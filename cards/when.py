"""Turning a `when` into an absolute interval [start, end) with a precision and a
source (stated or resolved), against the message's reference time in the
user's zone (DESIGN §5). ISO dates, written dates and relative expressions in
English and Chinese are understood (rules in cards/timeexpr); anything else is
refused as unresolvable — never guessed, never "today"."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from .timeexpr import DATE_ORDERS, EARLIEST_YEAR, LATEST_YEAR, Interval, UnresolvableTime, resolve

__all__ = ["DATE_ORDERS", "DEFAULT_DATE_ORDER", "EARLIEST_YEAR", "LATEST_YEAR", "Interval", "UnresolvableTime",
           "user_zone", "when_resolve"]

# How 5/8/2023 is read when the caller does not say: month first, as in the US.
DEFAULT_DATE_ORDER = "mdy"


def when_resolve(expression: str, *, reference: dt.datetime, tz: dt.tzinfo,
                 date_order: str = DEFAULT_DATE_ORDER) -> Interval:
    """`end` is exclusive, and None only for a stated instant (an ISO or written datetime)."""
    return resolve(expression, reference=reference, tz=tz, date_order=date_order)


def user_zone(user) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(user.time_zone or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):  # validated on save, but never a 500
        return zoneinfo.ZoneInfo("UTC")
