"""Every page shows dates as people read them: a household in Lisbon and one in
Taipei each see a card's day as their own local day, never an ISO instant or
a UTC day (core/dates.py)."""

import datetime as dt
import re
import zoneinfo

import pytest

from cards.drafts import CardDraft
from cards.services import card_remember
from scopes.tokens import token_create
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

ISO_INSTANT = re.compile(rb"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


@pytest.mark.parametrize(("zone", "username"), [("Europe/Lisbon", "dana"), ("Asia/Taipei", "mei")])
def test_a_household_sees_its_own_local_day(pages, zone, username):
    person = UserFactory(username=username, time_zone=zone)
    family = family_scope(owner=person, name="Home")
    local = zoneinfo.ZoneInfo(zone)
    # Moved in on 15 September, their time: local midnight, which is still the 14th in UTC.
    moved = dt.datetime(2026, 9, 15, tzinfo=local)
    card = card_remember(scope=family, actor=person, draft=CardDraft(
        kind="state", label="address", subject="me", value="Rua das Amoreiras 14",
        effective_at=moved, reference_time=moved + dt.timedelta(hours=9))).card
    trip = card_remember(scope=family, actor=person, draft=CardDraft(
        kind="event", label="trip", subject="me", text="Trip to the coast", effective_at=dt.datetime(
            2026, 2, 1, tzinfo=local), reference_time=moved)).card
    token_create(user=person, name="kitchen", scopes=[family])
    client = pages(person)
    card_page = client.get(f"/cards/{card.pk}/").content
    assert b"Sep 15, 2026" in card_page and b"Sep 14" not in card_page
    assert b"ago" in card_page  # last confirmed: relative
    listing = client.get(f"/scopes/{family.pk}/").content
    assert b"Sep 15, 2026" in listing
    for page in (card_page, listing, client.get(f"/cards/{trip.pk}/").content, client.get("/tokens/").content,
                 client.get(f"/scopes/{family.pk}/members/").content):
        assert not ISO_INSTANT.search(page), ISO_INSTANT.search(page)


def test_events_read_as_events(pages, t0):
    person = UserFactory(username="dana", time_zone="Europe/Lisbon")
    scope = person.personal_scope
    lisbon = zoneinfo.ZoneInfo("Europe/Lisbon")
    now = dt.datetime.now(dt.timezone.utc)
    past = card_remember(scope=scope, actor=person, draft=CardDraft(
        kind="event", label="trip", subject="me", text="Trip to Porto", precision="month",
        occurred_at=dt.datetime(2026, 2, 1, tzinfo=lisbon), reference_time=now)).card
    ahead = card_remember(scope=scope, actor=person, draft=CardDraft(
        kind="event", label="trip", subject="me", text="Trip to Faro", precision="day",
        occurred_at=now + dt.timedelta(days=40), reference_time=now)).card
    client = pages(person)
    shown = client.get(f"/cards/{past.pk}/").content
    assert b"Happened" in shown and b"Feb 2026" in shown
    for words in (b"Still true", b"until now", b"now (current)", b"True since", b"superseded"):
        assert words not in shown, words
    assert b"Will happen" in client.get(f"/cards/{ahead.pk}/").content


def test_a_card_says_which_agent_wrote_it_and_in_which_conversation(pages, bearer):
    person = UserFactory(username="dana", time_zone="Europe/Lisbon")
    agent = bearer(person, scopes=[person.personal_scope], write=True)
    written = agent.post("/api/v1/cards/", {"scope": person.personal_scope.pk, "kind": "state", "subject": "me",
                                            "label": "employer", "value": "Atlas", "source": {"session": "chat-41"}},
                         format="json")
    assert written.json()["card"]["source"]["agent"] == "agent"
    page = pages(person).get(f"/cards/{written.json()['card']['id']}/").content.decode()
    assert "by the agent “agent” of dana" in page and "chat-41" in page
    assert "by agent" in pages(person).get(f"/scopes/{person.personal_scope.pk}/").content.decode()


def test_the_timeline_reads_in_local_days_and_its_labels_fit(pages):
    person = UserFactory(username="dana", time_zone="Europe/Lisbon")
    lisbon = zoneinfo.ZoneInfo("Europe/Lisbon")
    first = card_remember(scope=person.personal_scope, actor=person, draft=CardDraft(
        kind="state", label="address", subject="me", value="Rua das Amoreiras 14, 1250-020 Lisboa",
        effective_at=dt.datetime(2025, 3, 1, tzinfo=lisbon))).card
    card_remember(scope=person.personal_scope, actor=person, draft=CardDraft(
        kind="state", label="address", subject="me", value="Rua do Ouro 3, Porto",
        effective_at=dt.datetime(2026, 9, 15, tzinfo=lisbon)))
    page = pages(person).get(f"/cards/{first.pk}/").content.decode()
    svg = page[page.index("<svg"):page.index("</svg>")]
    assert not re.search(r"\d{4}-\d{2}-\d{2}", svg), "an ISO day on the timeline"
    assert "Sep 15, 2026" in svg and "Rua das Amoreiras 14, 1250-020 Lisboa:" in svg  # the tooltip: whole
    labels = re.findall(r'class="tl-label" text-anchor="end">([^<]*)<', svg)
    assert labels and all(len(label) <= 20 for label in labels), labels
