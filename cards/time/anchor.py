"""The speaker's day (DESIGN §5): which zone's midnights bound "today",
"yesterday", 昨天 … for one statement. The one rule, called by every path that
resolves a time expression (time/resolve, card writes single and bulk, ingest,
the `when` of queries):

- a reference time with an explicit offset anchors in that offset — 06:45 at
  +08:00 on 8 May: yesterday is 7 May there, whatever the person's setting;
- where that offset is the one the named zone (the request's `tz`, else the
  person's) has at that instant, the named zone itself is used, so a day that
  spans a summer-time change is still its 23 or 25 hours;
- without an offset (no reference, or a naive wall time), the named zone.

A fixed offset anchors one statement; it is never stored as a person's zone."""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo

from scopes.errors import UnknownTimeZone
from scopes.zones import zone_named

OFFSET = re.compile(r"([+-])(\d{2}):(\d{2})(?::(\d{2}))?")


def anchor_zone(reference: dt.datetime | None, zone: dt.tzinfo) -> dt.tzinfo:
    """The zone `reference` (as the speaker sent it; None: now, which carries no
    speaker's offset) anchors relative expressions in; `zone` is the request's
    `tz` or the person's zone."""
    if reference is None or reference.utcoffset() is None:
        return zone
    if isinstance(reference.tzinfo, zoneinfo.ZoneInfo):
        return reference.tzinfo  # already a named zone: keeps its summer time
    offset = reference.utcoffset()
    try:
        if reference.astimezone(zone).utcoffset() == offset:
            return zone
    except OverflowError:  # at the ends of time; the resolver refuses the year itself
        pass
    return dt.timezone(offset)


def zone_label(tz: dt.tzinfo) -> str:
    """How an anchoring zone is written: its IANA name, or a fixed offset as ±HH:MM."""
    key = getattr(tz, "key", None)
    if key:
        return key
    offset = tz.utcoffset(None)
    if offset is None:
        return "UTC"
    sign = "-" if offset < dt.timedelta(0) else "+"
    seconds = int(abs(offset).total_seconds())
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{sign}{hours:02d}:{minutes:02d}" + (f":{secs:02d}" if secs else "")


def zone_from_label(label: str, *, field: str = "time_zone") -> dt.tzinfo:
    """The inverse of zone_label; UnknownTimeZone for anything else."""
    match = OFFSET.fullmatch(label) if isinstance(label, str) else None
    if match is None:
        return zone_named(label, field=field)
    sign, hours, minutes, seconds = match.groups()
    offset = dt.timedelta(hours=int(hours), minutes=int(minutes), seconds=int(seconds or 0))
    if offset >= dt.timedelta(hours=24) or int(minutes) >= 60 or int(seconds or 0) >= 60:
        raise UnknownTimeZone(f"{label!r} is not an offset.", fields={field: ["an offset lies within ±23:59"]})
    return dt.timezone(-offset if sign == "-" else offset)
