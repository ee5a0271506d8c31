"""Dates as people read them: the one formatting function for every page.

Never a raw ISO instant, never a UTC day. An instant (when a card was recorded
or last confirmed) is shown in the viewer's zone; a day someone spoke of ("we
moved on the 15th", an event of day, month or year precision) in the zone it
was said in — the speaker's day — since the same instant is another day
elsewhere. Precision is shown as precision ("Feb 2026", not "2026-02-01"), and
"3 days ago" where relative reads better. Babel's skeletons give each
language's own form (English, 繁體中文).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

from babel.dates import format_skeleton, format_timedelta, get_datetime_format
from django.utils import translation

# The dashboard's languages (scopes.models.Language) as Babel names them.
_LOCALES = {"en": "en", "zh-hant": "zh_Hant", "zh-hans": "zh_Hans"}
DEFAULT_LOCALE = "en"

# "monthday" is a day without its year, where the year is plain around it (a chart's week labels).
_SKELETONS = {"day": "yMMMd", "monthday": "MMMd", "month": "yMMM", "year": "y"}
_WEEK = {"en": "week of {}", "zh_Hant": "{}當週", "zh_Hans": "{}当周"}


def babel_locale(language: str | None = None) -> str:
    """Babel's name for `language`, or for the page's language (the active one) when none is given."""
    return _LOCALES.get((language or translation.get_language() or "").lower(), DEFAULT_LOCALE)


def as_instant(value) -> dt.datetime | None:
    """A datetime from what pages hold: a datetime, or the API's ISO text."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
    if isinstance(value, dt.date):
        return dt.datetime.combine(value, dt.time(), dt.timezone.utc)
    parsed = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.timezone.utc)


def _zone(zone) -> dt.tzinfo:
    if isinstance(zone, str) and zone:
        try:
            return zoneinfo.ZoneInfo(zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return dt.timezone.utc
    return zone or dt.timezone.utc


def date_shown(value, *, zone, language: str | None = None, precision: str | None = "day") -> str:
    """A day (or week, month, year) in `zone`, in the viewer's language: "Sep 15, 2026",
    "Sep 2026", "2026"; precision "datetime" adds the time of day."""
    locale = babel_locale(language)
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        local = dt.datetime.combine(value, dt.time())  # a calendar day already: no zone moves it
    else:
        instant = as_instant(value)
        if instant is None:
            return ""
        local = instant.astimezone(_zone(zone)).replace(tzinfo=None)
    if precision == "datetime":
        return get_datetime_format("medium", locale=locale).format(
            format_skeleton("Hm", local, locale=locale), format_skeleton("yMMMd", local, locale=locale))
    if precision == "week":
        return _WEEK.get(locale, _WEEK["en"]).format(format_skeleton("yMMMd", local, locale=locale))
    return format_skeleton(_SKELETONS.get(precision or "day", "yMMMd"), local, locale=locale)


def ago_shown(value, *, now: dt.datetime, language: str | None = None) -> str:
    """How long ago (or how far ahead) `value` is from `now`: "3 days ago", "in 2 weeks"."""
    instant = as_instant(value)
    if instant is None:
        return ""
    return format_timedelta(instant - now, add_direction=True, threshold=1.1, locale=babel_locale(language))
