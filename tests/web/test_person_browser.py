"""The person page in a real browser (issue 20): from the home page's health
numbers to the facts behind them, then Entities → "About Dana", with her life
timeline and what waits to be re-checked, on a desktop and on a phone.
Screenshots go to test-artifacts/screenshots/; every read waits through `expect`."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from cards.drafts import CardDraft
from cards.services import card_remember
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope
from tests.web.test_browser import PASSWORD, browser_type_launch_args, shot, sign_in  # noqa: F401  (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def _person(username: str):
    user = UserFactory(username=username, time_zone="Europe/Lisbon", time_zone_chosen=True)
    user.set_password(PASSWORD)
    user.save()
    return user


@pytest.fixture
def costas():
    """Dana owns the family; Kai, her son, is a member. Dana moved twice and changed jobs;
    her job has gone unconfirmed for more than 180 days; an agent guessed she likes tea;
    her own scope holds a note Kai must never see."""
    dana, kai = _person("dana"), _person("kai")
    family = family_scope(owner=dana, name="The Costas")
    membership_set(scope=family, user=kai, role="member")
    now = timezone.now()

    def remember(scope, **draft):
        return card_remember(scope=scope, actor=dana, draft=CardDraft(subject="me", **draft)).card

    remember(family, kind="state", label="address", value="Rua do Ouro 3, Porto",
             reference_time=now - dt.timedelta(days=900))
    remember(family, kind="state", label="address", value="Rua das Amoreiras 14, Lisboa",
             reference_time=now - dt.timedelta(days=100))
    remember(family, kind="state", label="employer", value="Atlas Tiles", reference_time=now - dt.timedelta(days=400))
    remember(family, kind="event", label="trip", text="Trip to the Azores", precision="day",
             occurred_at=now - dt.timedelta(days=60), reference_time=now - dt.timedelta(days=50))
    remember(family, kind="state", label="likes", value="green tea", tag="hypothesis", confidence=0.55)
    remember(dana.personal_scope, kind="knowledge", label="note", text="Surprise party plans for Kai")
    return {"dana": dana, "kai": kai, "family": family}


def test_from_home_to_about_dana_with_her_timeline_and_what_to_re_check(live_server, page, costas):
    base = live_server.url
    sign_in(page, base, "kai")
    health = page.get_by_role("list", name="Health of The Costas")
    expect(health).to_be_visible()
    # Each number is a link to the facts behind it.
    expect(health.get_by_role("link", name="4 cards")).to_be_visible()
    expect(health.get_by_role("link", name="1 to re-check")).to_be_visible()
    expect(health.get_by_role("link", name="1 guess to confirm")).to_be_visible()
    shot(page, "home-health-links")
    health.get_by_role("link", name="1 guess to confirm").click()
    page.wait_for_url(re.compile(r"tag=hypothesis"))
    expect(page.locator("#card-list tbody tr")).to_have_count(1)
    expect(page.locator("#card-list tbody")).to_contain_text("green tea")

    page.get_by_role("link", name="Home").click()
    page.get_by_role("link", name="Entities").click()
    page.get_by_role("heading", name="Entities").wait_for()
    page.get_by_role("link", name="Dana", exact=True).click()
    expect(page.get_by_role("heading", name="About Dana")).to_be_visible()

    # One life timeline: both homes, the job and the trip; the current home and job highlighted.
    timeline = page.get_by_role("img", name=re.compile("Dana's moves, jobs and events"))
    expect(timeline).to_be_visible()
    expect(page.locator("svg rect.tl-bar")).to_have_count(4)
    expect(page.locator("svg rect.tl-current")).to_have_count(2)
    expect(page.locator("#life-desc")).to_contain_text("Rua do Ouro 3, Porto")
    # What waits to be re-checked: the job, unconfirmed for 400 days.
    recheck = page.locator("#recheck-list")
    expect(recheck.locator("li")).to_have_count(1)
    expect(recheck).to_contain_text("Atlas Tiles")
    # The guess is labelled as one; her own scope's note is not Kai's to see.
    expect(page.locator("#guesses-list")).to_contain_text("guess")
    expect(page.locator("#now-list")).not_to_contain_text("green tea")
    expect(page.locator("main")).not_to_contain_text("Surprise party")
    shot(page, "person-page")

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    expect(page.get_by_role("heading", name="About Dana")).to_be_visible()
    page.get_by_role("heading", name="Life timeline").scroll_into_view_if_needed()
    expect(timeline).to_be_in_viewport()
    shot(page, "person-timeline-phone")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390 + 1, f"the page scrolls sideways on a phone: {width}px"



def test_a_member_who_does_not_review_follows_the_contradictions_number_to_both_sides(live_server, page, costas):
    """Kai's own scope says Dana works elsewhere: from the family he sees the two values disagree,
    and the number leads him to both of them (the review queue is not his to see)."""
    card_remember(scope=costas["kai"].personal_scope, actor=costas["kai"], draft=CardDraft(
        kind="state", label="employer", subject=costas["dana"].entity, value="Harbor Books"))
    sign_in(page, live_server.url, "kai")
    health = page.get_by_role("list", name="Health of The Costas")
    health.get_by_role("link", name="1 contradiction").click()
    page.wait_for_url(re.compile(r"view=contradictions"))
    rows = page.locator("#card-list tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.filter(has_text="Atlas Tiles")).to_have_count(1)
    expect(rows.filter(has_text="Harbor Books")).to_have_count(1)
    shot(page, "home-contradiction-sides")
