"""A card's (subject, label) history as a picture: one bar per value over its
valid-time interval, drawn server-side as SVG geometry a template renders (no
JavaScript, no chart library). The page pairs it with a table of the same rows."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from core.dates import date_shown

WIDTH = 640
# Room for the value labels (LABEL_CHARS) and the gap to the bars, at the size a phone draws them: 20 units,
# for the picture fits a phone's width there and its text must still read at 11 px (static/css/site.css).
LEFT = 240
LABEL_CHARS = 20
RIGHT = 16
BAR_HEIGHT = 22
GAP = 8
TOP = 8
AXIS_HEIGHT = 28
TICKS = 3  # four days on the axis: with the labels' room (LEFT) five crowded each other at 12px


@dataclass
class Bar:
    card_id: int
    value: str  # as drawn, cut to fit beside the bars
    full_value: str  # in the bar's tooltip and the picture's description
    start: dt.datetime
    end: dt.datetime | None  # None: still true
    current: bool
    x: float
    y: float
    width: float
    label_y: float


@dataclass
class Tick:
    x: float
    text: str
    anchor: str = "middle"  # the last day's label ends at its tick: centred, it ran past the picture's edge


@dataclass
class Timeline:
    bars: list[Bar]
    ticks: list[Tick]
    width: int
    height: int
    axis_y: float
    plot_left: int
    plot_right: int


def timeline_of(cards: list, *, now: dt.datetime, shown: dict[int, str] | None = None, zone=None,
                language: str | None = None) -> Timeline:
    """`cards` oldest first (card_history); `shown` gives each card's text as the viewer sees it;
    the axis reads in the viewer's `zone` and `language` (core.dates), never as UTC days."""
    shown = shown or {}
    starts = [c.effective_at for c in cards] or [now]
    first = min(starts)
    last = max([now, *[c.superseded_at for c in cards if c.superseded_at]])
    span = max((last - first).total_seconds(), 86400.0)  # at least a day wide
    plot = WIDTH - LEFT - RIGHT

    def x_of(moment: dt.datetime) -> float:
        return round(LEFT + plot * (moment - first).total_seconds() / span, 1)

    bars = []
    for row, card in enumerate(cards):
        y = TOP + row * (BAR_HEIGHT + GAP)
        start, end = x_of(card.effective_at), x_of(card.superseded_at or last)
        value = shown.get(card.pk) or card.value or card.text or "—"
        bars.append(Bar(card_id=card.pk, full_value=value,
                        value=value if len(value) <= LABEL_CHARS else value[:LABEL_CHARS - 1] + "…",
                        start=card.effective_at, end=card.superseded_at, current=card.superseded_at is None,
                        x=start, y=y, width=max(end - start, 3.0), label_y=y + BAR_HEIGHT * 0.7))
    axis_y = TOP + len(cards) * (BAR_HEIGHT + GAP)
    ticks = [Tick(x=round(LEFT + plot * i / TICKS, 1),
                  text=date_shown(first + dt.timedelta(seconds=span * i / TICKS), zone=zone, language=language,
                                  precision="day" if span < 3 * 365 * 86400 else "month"),
                  anchor="end" if i == TICKS else "middle")
             for i in range(TICKS + 1)]
    return Timeline(bars=bars, ticks=ticks, width=WIDTH, height=int(axis_y + AXIS_HEIGHT), axis_y=axis_y,
                    plot_left=LEFT, plot_right=WIDTH - RIGHT)
