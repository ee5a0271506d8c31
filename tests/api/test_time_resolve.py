"""POST /api/v1/time/resolve/ (API.md "time"): the resolver behind remember, as an endpoint.
Intervals come back as UTC instants plus the zone they were anchored in (DESIGN §5: the day is the speaker's)."""

import datetime as dt
import zoneinfo

import pytest
from django.utils import timezone

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
URL = "/api/v1/time/resolve/"
FRIDAY = "2026-05-08T16:44:10+08:00"


def test_resolves_in_the_callers_zone_by_default(alice, as_user):
    response = as_user(alice).post(URL, {"expression": "yesterday", "reference_time": FRIDAY}, format="json")
    assert response.status_code == 200, response.content
    # 7 May in Taipei, written as UTC instants; the offset agrees with alice's zone, so her zone anchors.
    assert response.json() == {"start": "2026-05-06T16:00:00Z", "end": "2026-05-07T16:00:00Z",
                               "precision": "day", "source": "resolved", "zone": "Asia/Taipei", "tz": "Asia/Taipei"}


def test_yesterday_at_0645_plus_eight_is_the_speakers_7_may_not_utcs_6_may(as_user):
    # The reproduction: a person who never set a zone (UTC), an agent that sent the offset.
    dana = UserFactory(username="dana")
    body = as_user(dana).post(URL, {"expression": "yesterday", "reference_time": "2026-05-08T06:45:00+08:00"},
                              format="json").json()
    assert (body["start"], body["end"], body["zone"]) == ("2026-05-06T16:00:00Z", "2026-05-07T16:00:00Z", "+08:00")
    local = dt.datetime.fromisoformat(body["start"]).astimezone(dt.timezone(dt.timedelta(hours=8)))
    assert local.date() == dt.date(2026, 5, 7)


def test_a_given_zone_and_a_naive_reference_read_as_wall_time_there(alice, bearer):
    # Monday 09:00 in Berlin; yesterday was the 23-hour day of the spring change.
    body = bearer(alice).post(URL, {"expression": "yesterday", "reference_time": "2026-03-30T09:00:00",
                                    "tz": "Europe/Berlin"}, format="json").json()
    assert (body["start"], body["end"], body["zone"]) == ("2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z",
                                                          "Europe/Berlin")


def test_an_offset_anchors_even_against_a_given_zone(alice, as_user):
    # `tz` is for a reference time without an offset; a stated offset is the speaker's own clock.
    body = as_user(alice).post(URL, {"expression": "today", "reference_time": "2026-05-08T06:45:00-04:00",
                                     "tz": "Asia/Taipei"}, format="json").json()
    assert (body["start"], body["end"], body["zone"]) == ("2026-05-08T04:00:00Z", "2026-05-09T04:00:00Z", "-04:00")


def test_weekend_chinese_and_date_order(alice, as_user):
    client = as_user(alice)
    saturday = "2026-05-09T10:00:00+08:00"
    weekend = client.post(URL, {"expression": "這個週末", "reference_time": saturday}, format="json").json()
    assert (weekend["start"], weekend["end"]) == ("2026-05-08T16:00:00Z", "2026-05-10T16:00:00Z")
    for order, start in (("mdy", "2023-05-07T16:00:00Z"), ("dmy", "2023-08-04T16:00:00Z")):
        body = client.post(URL, {"expression": "5/8/2023", "reference_time": FRIDAY, "date_order": order},
                           format="json").json()
        assert (body["start"], body["source"]) == (start, "stated")


def test_a_stated_instant_has_no_end_and_is_written_in_utc(alice, as_user):
    body = as_user(alice).post(URL, {"expression": "2026-05-08T09:30:00+08:00"}, format="json").json()
    assert (body["start"], body["end"], body["precision"]) == ("2026-05-08T01:30:00Z", None, "datetime")


def test_the_reference_defaults_to_now_in_the_persons_zone(alice, as_user):
    tz = zoneinfo.ZoneInfo("Asia/Taipei")
    before = timezone.now().astimezone(tz).date()
    body = as_user(alice).post(URL, {"expression": "today"}, format="json").json()
    after = timezone.now().astimezone(tz).date()
    assert body["zone"] == "Asia/Taipei"
    assert dt.datetime.fromisoformat(body["start"]).astimezone(tz).date() in (before, after)


# --- the speaker's day, zone by zone -----------------------------------------------------------
# One instant, 2026-03-29 10:30 UTC: Monday 30 March 00:30 on Kiritimati (UTC+14), Saturday 28 March
# 23:30 in Pago Pago (UTC−11), Sunday 29 March 11:30 in Lisbon — the morning summer time began there
# (01:00 UTC). "yesterday" is a different calendar day in each; Lisbon's "today" has 23 hours. And a
# second Lisbon instant, the day after summer time ended (25 October, 25 hours).

INSTANT = "2026-03-29T10:30:00Z"
ZONES = {
    # zone: (the instant with its offset there, the same as a naive wall time, yesterday, today)
    "Pacific/Kiritimati": ("2026-03-30T00:30:00+14:00", "2026-03-30T00:30:00",
                           ("2026-03-28T10:00:00Z", "2026-03-29T10:00:00Z"),
                           ("2026-03-29T10:00:00Z", "2026-03-30T10:00:00Z")),
    "Pacific/Pago_Pago": ("2026-03-28T23:30:00-11:00", "2026-03-28T23:30:00",
                          ("2026-03-27T11:00:00Z", "2026-03-28T11:00:00Z"),
                          ("2026-03-28T11:00:00Z", "2026-03-29T11:00:00Z")),
    "Europe/Lisbon": ("2026-03-29T11:30:00+01:00", "2026-03-29T11:30:00",
                      ("2026-03-28T00:00:00Z", "2026-03-29T00:00:00Z"),     # 28 March, still +00:00
                      ("2026-03-29T00:00:00Z", "2026-03-29T23:00:00Z")),    # 29 March: 23 hours
}
LISBON_AUTUMN = ("2026-10-26T09:00:00+00:00", "2026-10-26T09:00:00",
                 ("2026-10-24T23:00:00Z", "2026-10-26T00:00:00Z"),          # 25 October: 25 hours
                 ("2026-10-26T00:00:00Z", "2026-10-27T00:00:00Z"))
CASES = [pytest.param(zone, *row, id=zone) for zone, row in ZONES.items()] + [
    pytest.param("Europe/Lisbon", *LISBON_AUTUMN, id="Europe/Lisbon-autumn")]


def resolve(client, expression: str, reference: str, **extra) -> tuple[str, str, str]:
    response = client.post(URL, {"expression": expression, "reference_time": reference, **extra}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    return body["start"], body["end"], body["zone"]


def test_the_three_zones_see_one_instant_on_three_days():
    assert {dt.datetime.fromisoformat(row[0]).astimezone(dt.timezone.utc) for row in ZONES.values()} == {
        dt.datetime.fromisoformat(INSTANT)}
    assert len({row[2] for row in ZONES.values()}) == 3


@pytest.mark.parametrize("zone, with_offset, naive, yesterday, today", CASES)
def test_without_an_offset_the_persons_zone_anchors(as_user, zone, with_offset, naive, yesterday, today):
    client = as_user(UserFactory(username="speaker", time_zone=zone))
    assert resolve(client, "yesterday", naive) == (*yesterday, zone)
    assert resolve(client, "today", naive) == (*today, zone)


@pytest.mark.parametrize("zone, with_offset, naive, yesterday, today", CASES)
def test_an_offset_that_is_the_persons_own_keeps_their_zone_and_its_summer_time(
        as_user, zone, with_offset, naive, yesterday, today):
    client = as_user(UserFactory(username="speaker", time_zone=zone))
    assert resolve(client, "yesterday", with_offset) == (*yesterday, zone)
    assert resolve(client, "today", with_offset) == (*today, zone)


@pytest.mark.parametrize("zone, with_offset, naive, yesterday, today", CASES)
def test_an_explicit_offset_anchors_whatever_zone_the_person_has(
        as_user, zone, with_offset, naive, yesterday, today):
    # The person's zone is elsewhere (Taipei): the offset alone decides the day, midnight to midnight in it.
    client = as_user(UserFactory(username="speaker", time_zone="Asia/Taipei"))
    offset = with_offset[-6:]
    start, end, anchored = resolve(client, "yesterday", with_offset)
    assert anchored == offset
    fixed = dt.timezone(dt.datetime.fromisoformat(with_offset).utcoffset())
    local_start = dt.datetime.fromisoformat(start).astimezone(fixed)
    assert local_start.time() == dt.time(0) and dt.datetime.fromisoformat(end) - dt.datetime.fromisoformat(start) == (
        dt.timedelta(days=1))  # a fixed offset has no summer time: always 24 hours
    assert local_start.date() == dt.datetime.fromisoformat(with_offset).date() - dt.timedelta(days=1)
    if zone != "Europe/Lisbon":  # no summer time there: the offset's day is the zone's day
        assert (start, end) == yesterday


def test_unresolvable_is_400_with_the_expression(alice, as_user):
    response = as_user(alice).post(URL, {"expression": "next blursday", "reference_time": FRIDAY}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "unresolvable_time" and "blursday" in body["detail"]
    assert body["expression"] == "next blursday"


def test_anonymous_is_401(api):
    response = api.post(URL, {"expression": "today"}, format="json")
    assert response.status_code == 401 and response.json()["code"] == "not_authenticated"


@pytest.mark.parametrize("body, field", [
    ({"expression": "today", "when": "today"}, "when"),
    ({"expression": "today", "tz": "Mars/Olympus_Mons"}, "tz"),
    ({"expression": "today", "tz": "America"}, "tz"),
    ({"expression": "today", "tz": "../../etc/passwd"}, "tz"),
    ({"expression": "today", "date_order": "ymd"}, "date_order"),
    ({"expression": "today", "reference_time": "last tuesday"}, "reference_time"),
    ({"expression": ""}, "expression"),
    ({"expression": "x" * 201}, "expression"),
    ({}, "expression"),
])
def test_bad_fields_are_validation_errors(alice, as_user, body, field):
    response = as_user(alice).post(URL, body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "validation_error" and field in response.json()["fields"]


def test_only_post(alice, as_user):
    assert as_user(alice).get(URL).status_code == 405
