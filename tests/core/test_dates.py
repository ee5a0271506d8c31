"""Dates for people (core/dates.py): the speaker's day, precision as precision,
the viewer's language, never an ISO instant."""

import datetime as dt

import pytest

from core.dates import ago_shown, date_shown

UTC = dt.timezone.utc
# 23:00 UTC on 14 September: already the 15th in Lisbon (UTC+1 in summer), the 15th in Taipei too.
LATE = dt.datetime(2026, 9, 14, 23, 0, tzinfo=UTC)


@pytest.mark.parametrize(("zone", "shown"), [
    ("Europe/Lisbon", "Sep 15, 2026"), ("Asia/Taipei", "Sep 15, 2026"), ("America/New_York", "Sep 14, 2026"),
    ("UTC", "Sep 14, 2026")])
def test_a_day_is_the_day_in_the_zone_it_is_read_in(zone, shown):
    assert date_shown(LATE, zone=zone) == shown
    assert date_shown("2026-09-14T23:00:00Z", zone=zone) == shown  # the API's text, the same day


@pytest.mark.parametrize(("precision", "shown"), [
    ("day", "Feb 1, 2026"), ("month", "Feb 2026"), ("year", "2026"), ("week", "week of Feb 1, 2026"),
    ("datetime", "Feb 1, 2026, 00:00")])
def test_precision_is_shown_as_precision(precision, shown):
    start = dt.datetime(2026, 2, 1, tzinfo=dt.timezone(dt.timedelta(hours=0)))
    assert date_shown(start, zone="Europe/Lisbon", precision=precision) == shown


def test_traditional_chinese_reads_in_its_own_form():
    assert date_shown(LATE, zone="Asia/Taipei", language="zh-hant") == "2026年9月15日"
    assert date_shown(LATE, zone="Asia/Taipei", language="zh-hant", precision="month") == "2026年9月"
    assert ago_shown(LATE - dt.timedelta(days=3), now=LATE, language="zh-hant") == "3 天前"


def test_relative_where_it_helps():
    assert ago_shown(LATE - dt.timedelta(days=3), now=LATE) == "3 days ago"
    assert ago_shown(LATE + dt.timedelta(days=14), now=LATE) == "in 2 weeks"
    assert ago_shown(None, now=LATE) == ""


def test_a_calendar_day_is_never_moved_by_a_zone():
    assert date_shown(dt.date(2026, 9, 14), zone="America/Los_Angeles") == "Sep 14, 2026"
