"""Turning a `when` into an absolute interval [start, end) with a precision and a
source (stated or resolved), against the message's reference time in the
speaker's day (DESIGN §5): the zone `anchor_zone` picks. ISO dates, written
dates and relative expressions in English and Chinese are understood (rules in
cards/time); anything else is refused as unresolvable — never guessed,
never "today". A read's `when`, and a time expression inside its query, are
resolved here too, in the asker's day."""

from __future__ import annotations

import datetime as dt
import re

from django.utils import timezone

from scopes.zones import person_zone, zone_named

from .base import DATE_ORDERS, EARLIEST_YEAR, LATEST_YEAR, Interval, UnresolvableTime
from .anchor import anchor_zone, zone_from_label, zone_label
from .find import QueryTime, time_in_query
from .resolve import resolve

__all__ = ["DATE_ORDERS", "DEFAULT_DATE_ORDER", "EARLIEST_YEAR", "LATEST_YEAR", "Interval", "UnresolvableTime",
           "anchor_zone", "person_zone", "speaker_zone", "when_in_query", "when_interval", "when_resolve",
           "zone_from_label", "zone_label"]

# How 5/8/2023 is read when the caller does not say: month first, as in the US.
DEFAULT_DATE_ORDER = "mdy"

WORDS = re.compile(r"[^\W_]")  # a query left with no letter or digit asks about nothing but its time


def when_resolve(expression: str, *, reference: dt.datetime, tz: dt.tzinfo,
                 date_order: str = DEFAULT_DATE_ORDER) -> Interval:
    """`tz` is the anchoring zone (anchor_zone's answer). `end` is exclusive, and
    None only for a stated instant (an ISO or written datetime)."""
    return resolve(expression, reference=reference, tz=tz, date_order=date_order)


def speaker_zone(user, tz_name: str | None) -> dt.tzinfo:
    """The zone a request names in `tz`, else the person's own; a bad name is a 400."""
    return zone_named(tz_name, field="tz") if tz_name else person_zone(user)


def when_interval(expression: str, *, tz_name: str | None, user) -> Interval:
    """A query's `when`, resolved now in the caller's zone (DESIGN §5: both ends
    share one clock); the server's now carries no speaker's offset."""
    return when_resolve(expression, reference=timezone.now(), tz=anchor_zone(None, speaker_zone(user, tz_name)))


def when_in_query(query: str, *, tz_name: str | None, user, reference: dt.datetime | None = None) -> QueryTime | None:
    """A time expression inside the query ("what did we do last weekend?"),
    resolved as `when_interval` resolves `when` — against `reference` (a read's
    as_of) or now — with the rest of the query."""
    found = time_in_query(query, reference=reference or timezone.now(),
                          tz=anchor_zone(None, speaker_zone(user, tz_name)))
    return found if found is not None and WORDS.search(found.rest) else None
