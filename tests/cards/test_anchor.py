"""anchor_zone, the one rule of the speaker's day (DESIGN §5), and how an
anchoring zone is written and read back."""

import datetime as dt
import zoneinfo

import pytest

from cards.time.when import anchor_zone, zone_from_label, zone_label
from scopes.errors import UnknownTimeZone

LISBON = zoneinfo.ZoneInfo("Europe/Lisbon")
TAIPEI = zoneinfo.ZoneInfo("Asia/Taipei")
PLUS_8 = dt.timezone(dt.timedelta(hours=8))


def test_no_reference_or_a_naive_one_anchors_in_the_named_zone():
    assert anchor_zone(None, LISBON) is LISBON
    assert anchor_zone(dt.datetime(2026, 5, 8, 6, 45), LISBON) is LISBON


def test_an_offset_that_differs_from_the_zone_anchors_as_that_offset():
    zone = anchor_zone(dt.datetime(2026, 5, 8, 6, 45, tzinfo=PLUS_8), LISBON)
    assert zone.utcoffset(None) == dt.timedelta(hours=8) and zone_label(zone) == "+08:00"


def test_an_offset_the_zone_has_then_keeps_the_zone_for_its_summer_time():
    summer = dt.datetime(2026, 7, 1, 9, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    winter = dt.datetime(2026, 1, 1, 9, tzinfo=dt.timezone.utc)
    assert anchor_zone(summer, LISBON) is LISBON and anchor_zone(winter, LISBON) is LISBON
    # +01:00 in January is not Lisbon's clock: the speaker is elsewhere.
    assert zone_label(anchor_zone(winter.replace(tzinfo=dt.timezone(dt.timedelta(hours=1))), LISBON)) == "+01:00"


def test_a_reference_already_in_a_named_zone_keeps_it():
    assert anchor_zone(dt.datetime(2026, 5, 8, tzinfo=TAIPEI), LISBON) is TAIPEI


@pytest.mark.parametrize("tz, label", [
    (LISBON, "Europe/Lisbon"), (PLUS_8, "+08:00"), (dt.timezone(dt.timedelta(hours=-11)), "-11:00"),
    (dt.timezone.utc, "+00:00"), (dt.timezone(dt.timedelta(hours=5, minutes=45)), "+05:45"),
    (dt.timezone(-dt.timedelta(hours=3, minutes=30)), "-03:30"),
    (dt.timezone(dt.timedelta(hours=14)), "+14:00"),
])
def test_labels_read_back_as_the_same_zone(tz, label):
    assert zone_label(tz) == label
    back = zone_from_label(label)
    at = dt.datetime(2026, 3, 29, 10, 30, tzinfo=dt.timezone.utc)
    assert back.utcoffset(at.astimezone(back)) == tz.utcoffset(at.astimezone(tz))


@pytest.mark.parametrize("label", ["+24:00", "+08:60", "8:00", "+8", "Mars/Olympus", "", "UTC+8", None, 8])
def test_anything_else_is_not_a_zone(label):
    with pytest.raises(UnknownTimeZone) as refused:
        zone_from_label(label)
    assert refused.value.code == "validation_error" and "time_zone" in refused.value.extra["fields"]
