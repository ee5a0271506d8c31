"""Which instants the memory can hold, for every entry point alike.

Python dates end at year 9999 and PostgreSQL timestamps begin at year 1 (UTC):
a day's end, a local day around an instant, a decay measured up to it, or a
time zone shift near either edge would overflow (a 500), so an instant this far
out is refused where it comes in, never stored or computed with."""

from __future__ import annotations

import datetime as dt

from django.utils.translation import gettext as _

EARLIEST_YEAR, LATEST_YEAR = 2, 9998


def instant_problem(value: dt.datetime) -> str | None:
    """Why `value` (aware, or a naive wall time) is out of range, or None."""
    years = [value.year]
    if value.utcoffset() is not None:
        try:
            years.append(value.astimezone(dt.timezone.utc).year)
        except OverflowError:  # 0001-01-01T00:00+05:00 is in year 0 in UTC
            return _out_of_range()
    if all(EARLIEST_YEAR <= year <= LATEST_YEAR for year in years):
        return None
    return _out_of_range()


def _out_of_range() -> str:
    # In the page's language when a form shows it; the agent API speaks English (scopes/languages.py).
    return _("must fall between the years %(earliest)s and %(latest)s") % {"earliest": EARLIEST_YEAR,
                                                                           "latest": LATEST_YEAR}
