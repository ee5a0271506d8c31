"""POST /api/v1/time/resolve/ (API.md "time"): the resolver behind remember, as an endpoint."""

import datetime as dt
import zoneinfo

import pytest
from django.utils import timezone

pytestmark = pytest.mark.django_db
URL = "/api/v1/time/resolve/"
FRIDAY = "2026-05-08T16:44:10+08:00"


def test_resolves_in_the_callers_zone_by_default(alice, as_user):
    response = as_user(alice).post(URL, {"expression": "yesterday", "reference_time": FRIDAY}, format="json")
    assert response.status_code == 200, response.content
    assert response.json() == {"start": "2026-05-07T00:00:00+08:00", "end": "2026-05-08T00:00:00+08:00",
                               "precision": "day", "source": "resolved", "tz": "Asia/Taipei"}


def test_a_given_zone_and_a_naive_reference_read_as_wall_time_there(alice, bearer):
    # Monday 09:00 in Berlin; yesterday was the 23-hour day of the spring change.
    body = bearer(alice).post(URL, {"expression": "yesterday", "reference_time": "2026-03-30T09:00:00",
                                    "tz": "Europe/Berlin"}, format="json").json()
    assert (body["start"], body["end"], body["tz"]) == ("2026-03-29T00:00:00+01:00", "2026-03-30T00:00:00+02:00",
                                                        "Europe/Berlin")


def test_weekend_chinese_and_date_order(alice, as_user):
    client = as_user(alice)
    saturday = "2026-05-09T10:00:00+08:00"
    weekend = client.post(URL, {"expression": "這個週末", "reference_time": saturday}, format="json").json()
    assert (weekend["start"], weekend["end"]) == ("2026-05-09T00:00:00+08:00", "2026-05-11T00:00:00+08:00")
    for order, start in (("mdy", "2023-05-08T00:00:00+08:00"), ("dmy", "2023-08-05T00:00:00+08:00")):
        body = client.post(URL, {"expression": "5/8/2023", "reference_time": FRIDAY, "date_order": order},
                           format="json").json()
        assert (body["start"], body["source"]) == (start, "stated")


def test_a_stated_instant_has_no_end_and_is_shown_in_the_zone(alice, as_user):
    body = as_user(alice).post(URL, {"expression": "2026-05-08T09:30:00Z"}, format="json").json()
    assert (body["start"], body["end"], body["precision"]) == ("2026-05-08T17:30:00+08:00", None, "datetime")


def test_the_reference_defaults_to_now(alice, as_user):
    tz = zoneinfo.ZoneInfo("Asia/Taipei")
    before = timezone.now().astimezone(tz).date()
    body = as_user(alice).post(URL, {"expression": "today"}, format="json").json()
    after = timezone.now().astimezone(tz).date()
    assert dt.date.fromisoformat(body["start"][:10]) in (before, after)


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
