"""The day is the speaker's (DESIGN §5) on every write path: a reference time's
offset anchors "yesterday" for remember (one card and bulk) and for ingest; a
naive one is a wall time in the person's zone; the card keeps whose day it was."""

import datetime as dt

import pytest
from django.db import IntegrityError, transaction

from cards.models import Card
from review.models import Candidate
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

MORNING_AT_PLUS_8 = "2026-05-08T06:45:00+08:00"  # 22:45 UTC on 7 May: in UTC, "yesterday" would be 6 May
SPEAKERS_7_MAY = ("2026-05-06T16:00:00Z", "2026-05-07T16:00:00Z")  # 7 May, midnight to midnight at +08:00


@pytest.fixture
def utc_person(db):
    """Someone who never set a zone: the default, UTC."""
    return UserFactory(username="noor")


def wedding(scope, **extra) -> dict:
    return {"scope": scope.pk, "kind": "event", "subject": "me", "label": "wedding", "value": "Ana's wedding",
            "when": "yesterday", **extra}


def test_remember_anchors_yesterday_in_the_reference_times_offset(utc_person, bearer):
    agent = bearer(utc_person, write=True)
    response = agent.post("/api/v1/cards/", wedding(utc_person.personal_scope, reference_time=MORNING_AT_PLUS_8),
                          format="json")
    assert response.status_code == 201, response.json()
    card = response.json()["card"]
    assert (card["occurred_at"], card["occurred_end"], card["precision"]) == (*SPEAKERS_7_MAY, "day")
    assert card["zone"] == "+08:00"
    assert Card.objects.get(pk=card["id"]).anchor_zone == "+08:00"
    assert agent.get(f"/api/v1/cards/{card['id']}/").json()["zone"] == "+08:00"


def test_bulk_anchors_each_card_in_its_own_reference_time(utc_person, bearer):
    scope = utc_person.personal_scope
    cards = [wedding(scope, reference_time=MORNING_AT_PLUS_8),
             # The same instant in Pago Pago (UTC−11) is 11:45 on 7 May: "yesterday" is 6 May there.
             wedding(scope, value="Bo's wedding", reference_time="2026-05-07T11:45:00-11:00")]
    response = bearer(utc_person, write=True).post("/api/v1/cards/bulk/", {"cards": cards}, format="json")
    assert response.status_code == 201, response.json()
    first, second = (result["card"] for result in response.json()["results"])
    assert (first["occurred_at"], first["occurred_end"], first["zone"]) == (*SPEAKERS_7_MAY, "+08:00")
    assert (second["occurred_at"], second["occurred_end"], second["zone"]) == (
        "2026-05-06T11:00:00Z", "2026-05-07T11:00:00Z", "-11:00")


def test_a_naive_reference_time_is_a_wall_time_in_the_persons_zone(bearer):
    # The Lisbon household: the wedding was on 14 June there, not on 13 June in UTC.
    lisbon = UserFactory(username="rui", time_zone="Europe/Lisbon")
    response = bearer(lisbon, write=True).post(
        "/api/v1/cards/", wedding(lisbon.personal_scope, reference_time="2026-06-15T00:30:00"), format="json")
    card = response.json()["card"]
    assert (card["occurred_at"], card["occurred_end"], card["zone"]) == (
        "2026-06-13T23:00:00Z", "2026-06-14T23:00:00Z", "Europe/Lisbon")


def test_a_state_becomes_true_at_the_speakers_midnight(utc_person, bearer):
    # A move made "today" at 06:45 on 1 October at +08:00 holds from that midnight there: 16:00 UTC on
    # 30 September. Pages showing it as 1 October in the viewer's zone is a later change; this gives it the zone.
    response = bearer(utc_person, write=True).post("/api/v1/cards/", {
        "scope": utc_person.personal_scope.pk, "kind": "state", "subject": "me", "label": "address",
        "value": "Kyoto", "when": "today", "reference_time": "2026-10-01T06:45:00+08:00"}, format="json")
    card = response.json()["card"]
    assert (card["effective_at"], card["zone"]) == ("2026-09-30T16:00:00Z", "+08:00")


def test_a_bad_zone_is_refused_whole(utc_person, bearer):
    before = Card.objects.count()
    response = bearer(utc_person, write=True).post(
        "/api/v1/cards/", wedding(utc_person.personal_scope, tz="+08:00"), format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "validation_error" and "offset" in response.json()["fields"]["tz"][0]
    assert Card.objects.count() == before


def test_ingest_resolves_relative_dates_in_the_messages_offset(utc_person, bearer, as_user,
                                                               django_capture_on_commit_callbacks):
    agent = bearer(utc_person, write=True)
    message = {"id": "m1", "role": "user", "text": "We went to Ana's wedding yesterday.", "at": MORNING_AT_PLUS_8}
    with django_capture_on_commit_callbacks(execute=True):
        response = agent.post("/api/v1/ingest/", {"scope": utc_person.personal_scope.pk, "session": "s1",
                                                  "messages": [message]}, format="json")
    assert response.status_code == 202, response.json()
    candidate = Candidate.objects.get(label="wedding")
    assert (candidate.occurred_at, candidate.occurred_end) == tuple(
        dt.datetime.fromisoformat(at) for at in SPEAKERS_7_MAY)
    assert candidate.anchor_zone == "+08:00"
    # Approved later, when the message itself is gone: the card still says whose day it was.
    approved = as_user(utc_person).post(f"/api/v1/review/{candidate.pk}/approve/", {}, format="json")
    assert approved.status_code == 200, approved.json()
    card = Card.objects.get(pk=approved.json()["card"])
    assert (card.occurred_at, card.anchor_zone) == (candidate.occurred_at, "+08:00")


def test_the_zone_of_an_event_is_part_of_when_it_happened(utc_person, bearer):
    body = bearer(utc_person, write=True).post(
        "/api/v1/cards/", wedding(utc_person.personal_scope, reference_time=MORNING_AT_PLUS_8), format="json").json()
    card = Card.objects.get(pk=body["card"]["id"])
    card.anchor_zone = "UTC"
    with pytest.raises(IntegrityError) as refused, transaction.atomic():
        card.save(update_fields=["anchor_zone"])
    assert "immutable_event" in str(refused.value)
    assert Card.objects.get(pk=card.pk).anchor_zone == "+08:00"


def test_a_naive_effective_at_is_a_wall_time_in_the_anchoring_zone(bearer):
    kiri = UserFactory(username="tem", time_zone="Pacific/Kiritimati")
    response = bearer(kiri, write=True).post("/api/v1/cards/", {
        "scope": kiri.personal_scope.pk, "kind": "state", "subject": "me", "label": "address", "value": "London",
        "effective_at": "2026-05-08T00:00:00"}, format="json")
    assert response.json()["card"]["effective_at"] == "2026-05-07T10:00:00Z"  # midnight at UTC+14
