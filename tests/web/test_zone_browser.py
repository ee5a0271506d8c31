"""The browser's time zone, proposed on first sign-in (Debian's Chromium, headless,
with its zone set per context): shown, never stored until the person confirms,
and gone once a zone is chosen."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from scopes.models import User
from tests.factories import UserFactory
from tests.web.test_browser import PASSWORD, browser_type_launch_args, shot, sign_in  # noqa: F401  (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def newcomer(username: str) -> User:
    user = UserFactory(username=username)
    user.set_password(PASSWORD)
    user.save()
    return user


def page_in_zone(browser, zone: str):
    return browser.new_context(timezone_id=zone).new_page()


def test_first_sign_in_proposes_the_browsers_zone_and_stores_it_only_when_confirmed(live_server, browser):
    person = newcomer("kiri")
    page = page_in_zone(browser, "Pacific/Kiritimati")
    sign_in(page, live_server.url, "kiri")
    proposal = page.locator("#zone-proposal")
    expect(proposal).to_be_visible()
    expect(proposal).to_contain_text("Your browser says you are in Pacific/Kiritimati")
    shot(page, "zone-proposal")
    person.refresh_from_db()
    assert (person.time_zone, person.time_zone_chosen) == ("UTC", False)  # shown is not stored

    proposal.get_by_role("button", name="Use Pacific/Kiritimati").click()
    expect(page.get_by_role("status")).to_contain_text("Pacific/Kiritimati")
    expect(page.locator("#zone-proposal")).to_have_count(0)
    person.refresh_from_db()
    assert (person.time_zone, person.time_zone_chosen) == ("Pacific/Kiritimati", True)
    page.reload()
    expect(page.get_by_role("heading", name="Your memory")).to_be_visible()
    expect(page.locator("#zone-proposal")).to_have_count(0)


def test_keeping_the_default_is_a_choice_too(live_server, browser):
    person = newcomer("noor")
    page = page_in_zone(browser, "Europe/Lisbon")
    sign_in(page, live_server.url, "noor")
    proposal = page.locator("#zone-proposal")
    expect(proposal).to_contain_text("Europe/Lisbon")
    proposal.get_by_role("button", name="Keep UTC").click()
    expect(page.get_by_role("status")).to_contain_text("UTC")
    expect(page.locator("#zone-proposal")).to_have_count(0)
    person.refresh_from_db()
    assert (person.time_zone, person.time_zone_chosen) == ("UTC", True)


def test_a_browser_in_no_place_is_not_proposed_and_settings_say_what_the_browser_reports(live_server, browser):
    newcomer("etc")
    page = page_in_zone(browser, "Etc/GMT-3")  # an offset in a zone's clothes: never proposed
    sign_in(page, live_server.url, "etc")
    expect(page.get_by_role("heading", name="Your memory")).to_be_visible()
    expect(page.locator("#zone-proposal")).to_be_hidden()

    other = page_in_zone(browser, "Pacific/Pago_Pago")
    sign_in(other, live_server.url, "etc")
    other.get_by_role("link", name="Settings").click()
    expect(other.locator("[data-zone-hint]")).to_contain_text("Your browser says Pacific/Pago Pago")
    other.get_by_label("Time zone", exact=True).select_option("Pacific/Pago_Pago")
    other.get_by_role("button", name="Save").click()
    expect(other.get_by_role("status")).to_contain_text("Pacific/Pago Pago")
    assert User.objects.get(username="etc").time_zone == "Pacific/Pago_Pago"
