"""Time expressions → absolute intervals [start, end) with a precision (DESIGN §5).

`cards.when` is the entry point the rest of the code uses; this package holds
the rules: base (calendar arithmetic), english, chinese, written (absolute
written dates, partly via dateparser) and resolve (the order they are tried in)."""

from .base import DATE_ORDERS, EARLIEST_YEAR, LATEST_YEAR, Interval, UnresolvableTime
from .resolve import resolve

__all__ = ["DATE_ORDERS", "EARLIEST_YEAR", "LATEST_YEAR", "Interval", "UnresolvableTime", "resolve"]
