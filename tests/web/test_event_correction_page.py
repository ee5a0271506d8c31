"""An event's corrected date on its page: the day it was said to be, as a person
reads days (the event's zone, the page's language), never the instants kept."""

import datetime as dt

import pytest
from django.utils import translation

from cards.drafts import CardDraft
from cards.services import card_remember, event_correct

pytestmark = pytest.mark.django_db


def test_the_page_shows_the_old_and_the_new_day_of_a_corrected_event(alice, scope, pages, t0):
    event = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="event", label="wedding", subject="Ana", value="Ana's wedding", reference_time=t0,
        occurred_at=dt.datetime(2026, 5, 2), precision="day")).card
    undated = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="event", label="trip", subject="me", value="Azores", reference_time=t0)).card
    event_correct(card=event, actor=alice, when="2026-05-03", reason="it was Sunday", object="Porto")
    event_correct(card=undated, actor=alice, when="2025-05-10")
    with translation.override("en"):
        page = pages(alice).get(f"/cards/{event.pk}/").content.decode()
        trip = pages(alice).get(f"/cards/{undated.pk}/").content.decode()
    assert "“May 2, 2026” → “May 3, 2026”" in page and "(it was Sunday)" in page
    assert "“” → “Porto”" in page
    assert "2026-05-01T16:00" not in page and "occurred_at" not in page
    assert "“undated” → “May 10, 2025”" in trip


def test_the_admin_shows_a_corrected_date_as_a_day_too(t0):
    from django.test import Client

    from tests.factories import UserFactory

    staff = UserFactory(username="ada", is_staff=True, is_superuser=True, time_zone="Asia/Taipei")
    event = card_remember(scope=staff.personal_scope, actor=staff, draft=CardDraft(
        kind="event", label="wedding", subject="Ana", value="Ana's wedding", reference_time=t0,
        occurred_at=dt.datetime(2026, 5, 2), precision="day")).card
    event_correct(card=event, actor=staff, when="2026-05-03")
    client = Client()
    client.force_login(staff)
    with translation.override("en"):
        page = client.get(f"/admin/cards/card/{event.pk}/change/").content.decode()
    assert "May 2, 2026" in page and "May 3, 2026" in page and "2026-05-01T16:00" not in page
