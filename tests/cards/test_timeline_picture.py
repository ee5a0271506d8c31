"""The timeline picture's axis: every day's label stays inside the picture."""

import datetime as dt
from types import SimpleNamespace

import pytest

from cards.pages.timeline import timeline_of

CHAR_WIDTH = 7  # px: generous for the axis's 12px digits and short month names


@pytest.mark.parametrize("days", [2, 80, 2000])
def test_every_axis_label_fits_inside_the_picture(days):
    now = dt.datetime(2026, 12, 3, 12, tzinfo=dt.timezone.utc)
    card = SimpleNamespace(pk=1, value="Rua das Amoreiras 14, Lisboa", text="", superseded_at=None,
                           effective_at=now - dt.timedelta(days=days))
    picture = timeline_of([card], now=now, zone="Europe/Lisbon")
    for tick in picture.ticks:
        width = len(tick.text) * CHAR_WIDTH
        left, right = {"middle": (tick.x - width / 2, tick.x + width / 2),
                       "end": (tick.x - width, tick.x), "start": (tick.x, tick.x + width)}[tick.anchor]
        assert 0 <= left and right <= picture.width, (tick.text, tick.anchor, left, right)
