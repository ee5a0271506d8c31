"""A person's time zone: which names are zones, and the one refusal for a name
that is not. The day a speaker's words are anchored in is decided above the
ladder (cards.time.when.anchor_zone); this module only knows what a zone name is."""

from __future__ import annotations

import functools
import zoneinfo

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from .errors import UnknownTimeZone

DEFAULT_ZONE = "UTC"


# What a system's zone folder holds beside the IANA names: copies and links for
# the C library (localtime, posixrules, posix/…, right/… with leap seconds) and
# Factory, which names no place. PostgreSQL refuses some of them in AT TIME ZONE
# (a zone reaches SQL when events are counted by day): each was a 500 on /count/.
NOT_PLACES = ("localtime", "posixrules", "Factory")
NOT_PLACE_PREFIXES = ("right/", "posix/")


def _iana_source_names() -> set[str] | None:
    """The zone and link names of the IANA source the zone data was compiled
    from (tzdata.zi: `Z name …`, `L target name`), if the machine has it."""
    for folder in zoneinfo.TZPATH:
        try:
            with open(f"{folder}/tzdata.zi", encoding="utf-8") as source:
                lines = [line.split() for line in source]
        except OSError:
            continue
        return ({words[1] for words in lines if len(words) > 1 and words[0] == "Z"}
                | {words[2] for words in lines if len(words) > 2 and words[0] == "L"})
    return None


@functools.cache
def time_zone_names() -> frozenset[str]:
    """The IANA names of places this machine can load: the names its zone data's
    IANA source declares (else, without that file, every loadable name but the
    system's own), never the system's extras above. Once per process:
    available_timezones() reads ~600 files (~9 ms)."""
    loadable = zoneinfo.available_timezones()
    declared = _iana_source_names()
    names = loadable if declared is None else loadable & declared
    return frozenset(name for name in names if name not in NOT_PLACES and not name.startswith(NOT_PLACE_PREFIXES))


def _why_not(value: str) -> str:
    # An offset is the commonest mistake, and the one that silently goes wrong at the next DST change.
    if value[:1] in ("+", "-") or value.upper().startswith(("UTC+", "UTC-", "GMT+", "GMT-")):
        return (_("%(value)s is an offset, not a time zone: give the IANA name of a place (e.g. Europe/Lisbon), "
                  "whose offset follows its summer time.") % {"value": repr(value)})
    return (_("%(value)s is not an IANA time zone name (e.g. Europe/Lisbon, Asia/Taipei, America/New_York).")
            % {"value": repr(value)})


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
