"""A person's time zone: which names are zones, and the one refusal for a name
that is not. The day a speaker's words are anchored in is decided above the
ladder (cards.when.anchor_zone); this module only knows what a zone name is."""

from __future__ import annotations

import functools
import zoneinfo

from django.core.exceptions import ValidationError

from .errors import UnknownTimeZone

DEFAULT_ZONE = "UTC"


@functools.cache
def time_zone_names() -> frozenset[str]:
    # available_timezones() reads ~600 tzdata files on every call (~9 ms): once per process.
    # Left out: tzdata's system links, which name no place and which PostgreSQL
    # refuses in AT TIME ZONE (a zone reaches SQL when events are counted by day).
    return frozenset(name for name in zoneinfo.available_timezones()
                     if name not in ("localtime", "posixrules", "Factory") and not name.startswith(("right/", "posix/")))


def _why_not(value: str) -> str:
    # An offset is the commonest mistake, and the one that silently goes wrong at the next DST change.
    if value[:1] in ("+", "-") or value.upper().startswith(("UTC+", "UTC-", "GMT+", "GMT-")):
        return (f"{value!r} is an offset, not a time zone: give the IANA name of a place (e.g. Europe/Lisbon), "
                "whose offset follows its summer time.")
    return f"{value!r} is not an IANA time zone name (e.g. Europe/Lisbon, Asia/Taipei, America/New_York)."


def validate_time_zone(value: str) -> None:
    """The model field's validator (forms, admin, full_clean)."""
    if value not in time_zone_names():
        raise ValidationError(_why_not(str(value)))


def zone_named(name: str, *, field: str = "time_zone") -> zoneinfo.ZoneInfo:
    """The zone called `name`, or UnknownTimeZone naming `field` (a 400, never a 500)."""
    if not isinstance(name, str) or name not in time_zone_names():
        raise UnknownTimeZone(_why_not(str(name)[:64]), fields={field: [_why_not(str(name)[:64])]})
    return zoneinfo.ZoneInfo(name)


def person_zone(user) -> zoneinfo.ZoneInfo:
    """The person's own zone; UTC for a person without one (validated on save, but never a 500 here)."""
    name = getattr(user, "time_zone", "") or DEFAULT_ZONE
    return zoneinfo.ZoneInfo(name if name in time_zone_names() else DEFAULT_ZONE)
