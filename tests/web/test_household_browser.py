"""A household's journeys in a real browser: a family in Lisbon and one in Taipei
read each card's day as their own local day; an event reads as an event (it
happened, or will happen, and its corrections keep their reasons); removing a
member and forgetting a card ask first; a forgotten card's old link shows a
plain "Not found"; a first sign-in is told where to start. Screenshots go to
test-artifacts/screenshots/."""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo

import pytest
from playwright.sync_api import expect

from cards.drafts import CardDraft
from cards.services import card_remember
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope
from tests.web.test_browser import PASSWORD, browser_type_launch_args, shot, sign_in  # noqa: F401  (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

ISO_INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
ISO_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def person(username: str, zone: str):
    user = UserFactory(username=username, time_zone=zone, time_zone_chosen=True)
    user.set_password(PASSWORD)
    user.save()
    return user


def sign_out(page) -> None:
    page.get_by_role("button", name=re.compile(r"^Sign out")).click()
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()


def moved_in(owner, family, zone: str):
    """An address from local midnight of 15 September, their time: still the 14th in UTC."""
    moved = dt.datetime(2026, 9, 15, tzinfo=zoneinfo.ZoneInfo(zone))
    return card_remember(scope=family, actor=owner, draft=CardDraft(
        kind="state", label="address", subject="me", value="Rua das Amoreiras 14, Lisboa", effective_at=moved,
        reference_time=moved + dt.timedelta(hours=9))).card


def test_a_lisbon_and_a_taipei_household_each_read_their_own_local_day(live_server, page):
    base = live_server.url
    households = []
    for username, zone, shown in (("dana", "Europe/Lisbon", "lisbon"), ("mei", "Asia/Taipei", "taipei")):
        owner = person(username, zone)
        family = family_scope(owner=owner, name=f"Home of {username}")
        households.append((owner, family, moved_in(owner, family, zone), shown))
    for owner, family, card, shown in households:
        sign_in(page, base, owner.username)
        page.goto(f"{base}/cards/{card.pk}/")
        main = page.locator("main")
        expect(main).to_contain_text("Sep 15, 2026")
        expect(main).not_to_contain_text("Sep 14")
        expect(main).not_to_contain_text(ISO_INSTANT)
        shot(page, f"dates-{shown}-card")
        page.goto(f"{base}/scopes/{family.pk}/")
        expect(page.get_by_role("link", name=re.compile("Rua das Amoreiras"))).to_be_visible()
        listing = page.locator("#card-list")
        expect(listing).to_contain_text("Sep 15, 2026")
        expect(main).not_to_contain_text(ISO_INSTANT)
        expect(listing).not_to_contain_text(ISO_DAY)  # (the form's help may show how a day can be typed)
        shot(page, f"dates-{shown}-list")
        sign_out(page)


def test_events_read_as_events_and_keep_their_corrections(live_server, page):
    base = live_server.url
    dana = person("dana", "Europe/Lisbon")
    lisbon = zoneinfo.ZoneInfo("Europe/Lisbon")
    now = dt.datetime.now(dt.timezone.utc)
    scope = dana.personal_scope
    past = card_remember(scope=scope, actor=dana, draft=CardDraft(
        kind="event", label="trip", subject="me", text="Trip to Porto", precision="month",
        occurred_at=dt.datetime(2026, 2, 1, tzinfo=lisbon), reference_time=now)).card
    ahead = card_remember(scope=scope, actor=dana, draft=CardDraft(
        kind="event", label="trip", subject="me", text="Trip to Faro", precision="day",
        occurred_at=now + dt.timedelta(days=40), reference_time=now)).card
    sign_in(page, base, "dana")
    page.goto(f"{base}/cards/{past.pk}/")
    main = page.locator("main")
    expect(main).to_contain_text("Happened")
    expect(main).to_contain_text("Feb 2026")
    expect(page.get_by_role("button", name=re.compile("Still true"))).to_have_count(0)
    page.get_by_label("Description").fill("Trip to Porto with the kids")
    page.get_by_label("Reason").fill("the kids came too")
    page.get_by_role("button", name="Correct description").click()
    corrections = page.get_by_role("region", name="Corrections")
    expect(corrections).to_contain_text("the kids came too")
    expect(corrections).to_contain_text("Trip to Porto with the kids")
    expect(main).not_to_contain_text(ISO_INSTANT)
    shot(page, "event-happened-corrected")
    page.goto(f"{base}/cards/{ahead.pk}/")
    expect(main).to_contain_text("Will happen")
    expect(main).not_to_contain_text("Happened")
    shot(page, "event-will-happen")


def test_removing_a_member_and_forgetting_a_card_ask_first(live_server, page):
    base = live_server.url
    dana = person("dana", "Europe/Lisbon")
    family = family_scope(owner=dana, name="The Parks")
    sam = person("sam", "Europe/Lisbon")
    membership_set(scope=family, user=sam, role="member")
    card = moved_in(dana, family, "Europe/Lisbon")
    sign_in(page, base, "dana")

    page.goto(f"{base}/scopes/{family.pk}/members/")
    page.get_by_role("link", name="Remove sam").click()
    expect(page.get_by_role("heading", name="Remove sam from The Parks?")).to_be_visible()
    shot(page, "member-remove-confirm")
    page.get_by_role("link", name=re.compile("Keep them")).click()
    expect(page.get_by_role("link", name="Remove sam")).to_be_visible()  # kept
    page.get_by_role("link", name="Remove sam").click()
    page.get_by_role("button", name="Remove sam").click()
    expect(page.get_by_role("link", name="Remove sam")).to_have_count(0)

    page.goto(f"{base}/cards/{card.pk}/")
    page.get_by_role("link", name="Forget this card…").click()
    expect(page.get_by_role("heading", name="Forget this card?")).to_be_visible()
    shot(page, "forget-confirm")
    page.get_by_role("link", name="Keep it").click()
    expect(page.get_by_role("link", name="Forget this card…")).to_be_visible()  # kept
    page.get_by_role("link", name="Forget this card…").click()
    page.get_by_role("button", name="Forget it").click()
    expect(page.locator("main")).not_to_contain_text("Rua das Amoreiras")

    page.goto(f"{base}/cards/{card.pk}/")  # the forgotten card's old link
    expect(page.get_by_role("heading", name="Not found")).to_be_visible()
    for inside in ("urlpatterns", "URLconf", "Traceback", "api/v1"):
        expect(page.locator("body")).not_to_contain_text(inside)
    shot(page, "forgotten-card-not-found")


def test_a_first_sign_in_is_told_where_to_start(live_server, page):
    base = live_server.url
    person("noor", "Asia/Taipei")
    sign_in(page, base, "noor")
    start = page.get_by_role("region", name="Getting started")
    expect(start).to_be_visible()
    expect(start.get_by_role("link", name="Connect an agent")).to_be_visible()
    shot(page, "first-sign-in")
    start.get_by_role("link", name="your personal scope").click()
    expect(page.locator("main")).to_contain_text("Nothing is remembered here yet.")
    expect(page.get_by_role("link", name="connect an agent")).to_be_visible()
    shot(page, "empty-scope")
