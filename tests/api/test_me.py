"""GET/PATCH /api/v1/me/ (API.md "People"): a person's zone and language. Tokens
read them; only the signed-in person changes them; a zone is an IANA name, never
an offset, and a refused PATCH changes nothing."""

import pytest

from scopes.models import User

pytestmark = pytest.mark.django_db
URL = "/api/v1/me/"


def test_a_session_and_a_token_read_the_same_settings(alice, as_user, bearer):
    expected = {"username": "alice", "display_name": "Alice", "time_zone": "Asia/Taipei", "language": "en",
                "language_chosen": False}
    assert as_user(alice).get(URL).json() == expected
    assert bearer(alice).get(URL).json() == expected


def test_the_signed_in_person_sets_a_zone_and_language(alice, as_user):
    response = as_user(alice).patch(URL, {"time_zone": "Europe/Lisbon", "language": "zh-hant"}, format="json")
    assert response.status_code == 200, response.json()
    assert (response.json()["time_zone"], response.json()["language"]) == ("Europe/Lisbon", "zh-hant")
    alice.refresh_from_db()
    assert (alice.time_zone, alice.language, alice.time_zone_chosen) == ("Europe/Lisbon", "zh-hant", True)


def test_the_new_zone_anchors_the_next_statement_without_an_offset(alice, as_user):
    client = as_user(alice)
    client.patch(URL, {"time_zone": "Pacific/Pago_Pago"}, format="json")
    body = client.post("/api/v1/time/resolve/", {"expression": "today", "reference_time": "2026-05-08T09:00:00"},
                       format="json").json()
    assert (body["start"], body["zone"]) == ("2026-05-08T11:00:00Z", "Pacific/Pago_Pago")


@pytest.mark.parametrize("zone", ["+08:00", "UTC+8", "-11:00", "Mars/Olympus_Mons", "America", "posixrules",
                                  "../../etc/passwd", "", "x" * 65])
def test_a_bad_zone_is_a_validation_error_and_changes_nothing(alice, as_user, zone):
    response = as_user(alice).patch(URL, {"time_zone": zone, "language": "zh-hant"}, format="json")
    assert response.status_code == 400, response.json()
    assert response.json()["code"] == "validation_error" and "time_zone" in response.json()["fields"]
    alice.refresh_from_db()
    assert (alice.time_zone, alice.language, alice.time_zone_chosen) == ("Asia/Taipei", "", False)


def test_an_offset_is_refused_with_a_reason_a_person_can_act_on(alice, as_user):
    detail = as_user(alice).patch(URL, {"time_zone": "+08:00"}, format="json").json()["fields"]["time_zone"][0]
    assert "offset" in detail and "Europe/Lisbon" in detail


@pytest.mark.parametrize("body, field", [({"language": "fr"}, "language"), ({"language": 3}, "language"),
                                         ({"display_name": "Ally"}, "display_name"), ({"colour": "red"}, "colour"),
                                         ({"time_zone": ["Europe/Lisbon"]}, "time_zone")])
def test_other_bad_fields_are_named(alice, as_user, body, field):
    response = as_user(alice).patch(URL, {"time_zone": "Europe/Lisbon", **body}, format="json")
    assert response.status_code == 400 and field in response.json()["fields"], response.json()
    assert User.objects.get(pk=alice.pk).time_zone == "Asia/Taipei"


def test_a_token_reads_but_never_changes_the_persons_settings(alice, bearer):
    response = bearer(alice, write=True).patch(URL, {"time_zone": "Europe/Lisbon"}, format="json")
    assert response.status_code == 403 and response.json()["code"] == "permission_denied"
    assert User.objects.get(pk=alice.pk).time_zone == "Asia/Taipei"


def test_anonymous_is_401(api):
    assert api.get(URL).status_code == 401 and api.patch(URL, {}, format="json").status_code == 401


def test_an_empty_language_follows_the_browser_again(alice, as_user):
    client = as_user(alice)
    assert client.patch(URL, {"language": "zh-hant"}, format="json").json()["language_chosen"] is True
    body = client.patch(URL, {"language": ""}, format="json").json()
    assert (body["language"], body["language_chosen"]) == ("en", False)
    alice.refresh_from_db()
    assert alice.language == ""
