"""Signing in, approving a review candidate and forgetting a card with the
keyboard alone: Tab, Shift+Tab, Enter and Space, never a click or a scripted
focus. Where a key is about to act, the focus must be seen (the outline of
site.css's `:focus-visible`, on screen). Screenshots: keyboard-sign-in.png,
keyboard-review-approve.png, keyboard-review-approved.png, keyboard-forget.png,
keyboard-forgotten.png (test-artifacts/screenshots/)."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from cards.models import Card
from review.models import Candidate, CandidateStatus
from tests.web.test_browser import (  # noqa: F401  (fixtures)
    PASSWORD, browser_type_launch_args, dana, dana_family, shot, sign_in,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

# More Tab presses than any page here has stops before the one sought: past it, the walk is lost.
MOST_STOPS = 80


def _has_focus(locator) -> bool:
    return locator.evaluate("element => element === document.activeElement")


def tab_to(page, locator, *, key: str = "Tab") -> None:
    """Press Tab (or Shift+Tab) until the locator holds the focus, as a person walks a page."""
    for _ in range(MOST_STOPS):
        page.keyboard.press(key)
        if _has_focus(locator):
            return
    raise AssertionError(f"{key} never reached {locator}")


def focus_is_seen(locator) -> None:
    expect(locator).to_be_focused()
    expect(locator).to_be_in_viewport()
    expect(locator).to_have_css("outline-style", "solid")
    expect(locator).to_have_css("outline-width", "3px")


def test_sign_in_with_the_keyboard(live_server, page, dana):
    base = live_server.url
    page.goto(f"{base}/")
    username = page.get_by_label("Username")
    focus_is_seen(username)  # the form puts the focus there (autofocus)
    # Back to the top: the skip link, first in the page, is shown once it has the focus.
    skip = page.get_by_role("link", name="Skip to content")
    tab_to(page, skip, key="Shift+Tab")
    focus_is_seen(skip)
    tab_to(page, username)
    focus_is_seen(username)
    page.keyboard.type("dana")
    page.keyboard.press("Tab")
    password = page.get_by_label("Password")
    focus_is_seen(password)
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Tab")
    button = page.get_by_role("button", name="Sign in")
    focus_is_seen(button)
    shot(page, "keyboard-sign-in")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Your memory")).to_be_visible()
    expect(page.get_by_role("button", name="Sign out (Dana)")).to_be_visible()


def test_approve_a_review_candidate_with_the_keyboard(live_server, page, dana, dana_family):
    proposed = Candidate.objects.create(
        scope=dana_family, author=dana, kind="state", label="skill", subject="me", value="Rust",
        quote="I have been writing Rust all year", message_at=timezone.now(), extractor="patterns")
    base = live_server.url
    sign_in(page, base, "dana")
    review = page.get_by_role("link", name="Review", exact=True)
    tab_to(page, review)
    focus_is_seen(review)
    page.keyboard.press("Enter")
    family = page.get_by_role("link", name="The Parks")
    tab_to(page, family)
    focus_is_seen(family)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Review The Parks")).to_be_visible()
    approve = page.get_by_role("button", name="Approve me skill as proposed")
    tab_to(page, approve)
    page.keyboard.press("Tab")  # one stop too far, onto Reject, and back
    expect(page.get_by_role("button", name="Reject me skill")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    focus_is_seen(approve)
    shot(page, "keyboard-review-approve")
    page.keyboard.press("Space")
    expect(page.get_by_text("Approved:")).to_be_visible()
    expect(page.get_by_text("Nothing proposed waits here.")).to_be_visible()
    shot(page, "keyboard-review-approved")
    proposed.refresh_from_db()
    assert proposed.status == CandidateStatus.APPROVED and proposed.card.value == "Rust"


def test_forget_a_card_with_the_keyboard(live_server, page, dana, dana_family):
    card = Card.objects.get(scope=dana_family, label__key="address")
    base = live_server.url
    sign_in(page, base, "dana")
    page.goto(f"{base}/cards/{card.pk}/")  # reading a card is its own journey; this one starts on it
    forget = page.get_by_role("link", name="Forget this card…")
    tab_to(page, forget)
    focus_is_seen(forget)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Forget this card?")).to_be_visible()
    button = page.get_by_role("button", name="Forget it")
    tab_to(page, button)
    focus_is_seen(button)
    shot(page, "keyboard-forget")
    page.keyboard.press("Enter")
    expect(page.get_by_text(re.compile(r"^Forgotten: 1 card\b"))).to_be_visible()
    shot(page, "keyboard-forgotten")
    assert not Card.objects.filter(pk=card.pk).exists()
