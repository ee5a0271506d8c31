"""The resolver: normalise, try ISO, then Chinese or English rules, then written
dates; anything left is refused with a reason, never guessed (DESIGN §5)."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

from django.utils.translation import gettext as _

from ..models import Precision, TimeSource
from ..text import CJK
from .base import (
    DATE_ORDERS, EARLIEST_YEAR, LATEST_YEAR, Context, Interval, Refusal, at, in_range, unresolvable,
)
from .chinese import resolve_chinese
from .english import DIRECTION, resolve_english
from .written import resolve_numeric, resolve_written

MAX_LENGTH = 200  # the longest expression we read; longer text is not a time expression


def resolve(expression: str, *, reference: dt.datetime, tz: dt.tzinfo, date_order: str = "mdy") -> Interval:
    if date_order not in DATE_ORDERS:
        raise ValueError(f"date_order must be one of {DATE_ORDERS}")
    text = normalize(expression)
    if not text:
        raise unresolvable(expression, "it is empty")
    if len(text) > MAX_LENGTH:
        raise unresolvable(expression, "it is too long")
    try:
        found = _iso(text, tz)
        if found is not None:
            return found
        ctx = _context(reference, tz, date_order)
        found = resolve_any(text, ctx)
        if found is not None and not in_range(found, ctx):
            raise Refusal("it falls outside the supported years")
    except Refusal as refusal:
        raise unresolvable(expression, str(refusal)) from None
    except (OverflowError, ValueError):  # calendar arithmetic ran off the ends of time
        raise unresolvable(expression, "it falls outside the supported years") from None
    if found is None:
        raise unresolvable(expression, _why_not(text))
    return found


def normalize(expression: str) -> str:
    """NFKC folds full-width digits and letters (３天前, Ｍａｙ); case, curly quotes,
    runs of spaces, a leading "on" and trailing punctuation carry no meaning here."""
    text = unicodedata.normalize("NFKC", expression).casefold().replace("\u2019", "'")
    text = re.sub(r"\s+", " ", text).strip().rstrip(".!?,;:。！？，").strip()
    return text.removeprefix("on ")


def resolve_any(text: str, ctx: Context) -> Interval | None:
    if CJK.search(text):
        return resolve_chinese(text, ctx)
    return resolve_text(text, ctx)


def resolve_text(text: str, ctx: Context) -> Interval | None:
    """English and written dates; also the base of "yesterday evening", "May 8 at night"."""
    return resolve_english(text, ctx) or resolve_numeric(text, ctx) or resolve_written(text, ctx)


def _context(reference: dt.datetime, tz: dt.tzinfo, date_order: str) -> Context:
    # A naive reference is a wall time in `tz`, like a naive ISO datetime.
    now = reference.replace(tzinfo=tz) if reference.tzinfo is None else reference
    now = now.astimezone(tz)
    if not EARLIEST_YEAR <= now.year <= LATEST_YEAR:
        raise Refusal("the reference time is out of range")
    return Context(now=now, tz=tz, date_order=date_order, day=resolve_text)


def _iso(text: str, tz: dt.tzinfo) -> Interval | None:
    """ISO dates are a stated day, ISO datetimes a stated instant (a naive one is
    local to `tz`); None if the text is not ISO."""
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        day = None
    if day is not None:
        if not EARLIEST_YEAR <= day.year <= LATEST_YEAR:
            raise Refusal("the year is out of range")
        return Interval(at(day, tz), at(day + dt.timedelta(days=1), tz), Precision.DAY, TimeSource.STATED)
    try:
        moment = dt.datetime.fromisoformat(text.upper())
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=tz)
    if not EARLIEST_YEAR <= moment.year <= LATEST_YEAR:
        raise Refusal("the year is out of range")
    return Interval(moment, None, Precision.DATETIME, TimeSource.STATED)


def _why_not(text: str) -> str:
    """Name the part we did not know when the shape was otherwise familiar."""
    if m := re.fullmatch(rf"(?:{'|'.join(DIRECTION)}) (\S+)", text):
        return _("%(word)r is not a weekday, a month, or week/month/year/weekend") % {"word": m.group(1)}
    if text.endswith(" ago") or text.startswith("in "):
        return _("relative spans take a number and days, weeks, months or years: 3 days ago, in two weeks")
    return _("the expression was not understood")
