"""Turning a `when` into an absolute interval [start, end) with a precision and a
source (stated or resolved), against the message's reference time in the
speaker's day (DESIGN §5): the zone `anchor_zone` picks. ISO dates, written
dates and relative expressions in English and Chinese are understood (rules in
cards/timeexpr); anything else is refused as unresolvable — never guessed,
never "today"."""

from __future__ import annotations

import datetime as dt

from scopes.zones import person_zone, zone_named

from .timeexpr import DATE_ORDERS, EARLIEST_YEAR, LATEST_YEAR, Interval, UnresolvableTime, resolve
from .timeexpr.anchor import anchor_zone, zone_from_label, zone_label

__all__ = ["DATE_ORDERS", "DEFAULT_DATE_ORDER", "EARLIEST_YEAR", "LATEST_YEAR", "Interval", "UnresolvableTime",
           "anchor_zone", "person_zone", "speaker_zone", "when_resolve", "zone_from_label", "zone_label"]

# How 5/8/2023 is read when the caller does not say: month first, as in the US.
DEFAULT_DATE_ORDER = "mdy"


def when_resolve(expression: str, *, reference: dt.datetime, tz: dt.tzinfo,
                 date_order: str = DEFAULT_DATE_ORDER) -> Interval:
    """`tz` is the anchoring zone (anchor_zone's answer). `end` is exclusive, and
    None only for a stated instant (an ISO or written datetime)."""
    return resolve(expression, reference=reference, tz=tz, date_order=date_order)


def speaker_zone(user, tz_name: str | None) -> dt.tzinfo:
    """The zone a request names in `tz`, else the person's own; a bad name is a 400."""
    return zone_named(tz_name, field="tz") if tz_name else person_zone(user)
