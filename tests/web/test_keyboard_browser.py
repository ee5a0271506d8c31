"""Signing in, approving a review candidate and forgetting a card with the
keyboard alone: Tab, Shift+Tab, Enter and Space, never a click or a scripted
focus, in both languages (English, and Traditional Chinese asked for by a
Taiwanese browser). Where a key is about to act, the focus must be seen (the
outline of site.css's `:focus-visible`, on screen). The walk finds its stops by
ids, urls and field names, so one walk serves both languages; in English the
stops' spoken names are checked too. Screenshots: keyboard-<en|zh-hant>-sign-in.png,
-review-approve.png, -review-approved.png, -forget.png, -forgotten.png
(test-artifacts/screenshots/)."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from cards.models import Card
from review.models import Candidate, CandidateStatus
from tests.web.browser_languages import LOCALES, page_in, sign_in_by_fields, speaks  # noqa: F401  (a fixture)
from tests.web.test_browser import (  # noqa: F401  (fixtures)
    PASSWORD, browser_type_launch_args, dana, dana_family, shot,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

# More Tab presses than any page here has stops before the one sought: past it, the walk is lost.
MOST_STOPS = 80
DESKTOP = 1280


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


def named_in_english(locator, name: str, language: str) -> None:
    """What a screen reader says for the stop; the Chinese words are the catalogue's to check."""
    if language == "en":
        expect(locator).to_have_accessible_name(name)


@pytest.mark.parametrize("language", LOCALES)
def test_sign_in_with_the_keyboard(live_server, page_in, dana, language):
    page = page_in(language, DESKTOP)
    base = live_server.url
    page.goto(f"{base}/")
    page.wait_for_url(f"{base}/accounts/login/?next=/")
    speaks(page, language)
    form = page.locator("main form[action='/accounts/login/']")
    username = form.locator("input[name=username]")
    focus_is_seen(username)  # the form puts the focus there (autofocus)
    # Back to the top: the skip link, first in the page, is shown once it has the focus.
    skip = page.locator("a.skip-link[href='#main']")
    named_in_english(skip, "Skip to content", language)
    tab_to(page, skip, key="Shift+Tab")
    focus_is_seen(skip)
    tab_to(page, username)
    focus_is_seen(username)
    page.keyboard.type("dana")
    page.keyboard.press("Tab")
    focus_is_seen(form.locator("input[name=password]"))
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Tab")
    button = form.locator("button[type=submit]")
    named_in_english(button, "Sign in", language)
    focus_is_seen(button)
    shot(page, f"keyboard-{language}-sign-in")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/")
    speaks(page, language)
    # Signed in as her: the header's sign-out names her.
    sign_out = page.locator("header form[action='/accounts/logout/'] button")
    expect(sign_out).to_contain_text("Dana")
    named_in_english(sign_out, "Sign out (Dana)", language)


@pytest.mark.parametrize("language", LOCALES)
def test_approve_a_review_candidate_with_the_keyboard(live_server, page_in, dana, dana_family, language):
    proposed = Candidate.objects.create(
        scope=dana_family, author=dana, kind="state", label="skill", subject="me", value="Rust",
        quote="I have been writing Rust all year", message_at=timezone.now(), extractor="patterns")
    page = page_in(language, DESKTOP)
    base = live_server.url
    sign_in_by_fields(page, base, "dana")
    review = page.locator("header nav a[href='/review/']")
    tab_to(page, review)
    focus_is_seen(review)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/review/")
    family = page.locator(f"main a[href='/scopes/{dana_family.pk}/review/']")
    tab_to(page, family)
    focus_is_seen(family)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/scopes/{dana_family.pk}/review/")
    speaks(page, language)
    candidate = page.locator(f"#candidate-{proposed.pk}")
    approve = candidate.locator("button[type=submit][formnovalidate]")
    reject = candidate.locator(f"button[formaction='/review/candidates/{proposed.pk}/reject/']")
    named_in_english(approve, "Approve me skill as proposed, or as edited", language)
    named_in_english(reject, "Reject me skill", language)
    tab_to(page, approve)
    page.keyboard.press("Tab")  # one stop too far, onto Reject, and back
    expect(reject).to_be_focused()
    page.keyboard.press("Shift+Tab")
    focus_is_seen(approve)
    shot(page, f"keyboard-{language}-review-approve")
    page.keyboard.press("Space")
    expect(candidate).to_have_count(0)
    approved = page.locator("main .messages .message.success")
    expect(approved).to_have_count(1)
    if language == "en":
        expect(approved).to_contain_text("Approved:")
    speaks(page, language)
    shot(page, f"keyboard-{language}-review-approved")
    proposed.refresh_from_db()
    assert proposed.status == CandidateStatus.APPROVED and proposed.card.value == "Rust"


@pytest.mark.parametrize("language", LOCALES)
def test_forget_a_card_with_the_keyboard(live_server, page_in, dana, dana_family, language):
    card = Card.objects.get(scope=dana_family, label__key="address")
    page = page_in(language, DESKTOP)
    base = live_server.url
    sign_in_by_fields(page, base, "dana")
    page.goto(f"{base}/cards/{card.pk}/")  # reading a card is its own journey; this one starts on it
    forget = page.locator(f"main a[href='/cards/{card.pk}/forget/']")
    named_in_english(forget, "Forget this card…", language)
    tab_to(page, forget)
    focus_is_seen(forget)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/cards/{card.pk}/forget/")
    speaks(page, language)
    button = page.locator("main form:not([action]) button[type=submit]")
    named_in_english(button, "Forget it", language)
    tab_to(page, button)
    focus_is_seen(button)
    shot(page, f"keyboard-{language}-forget")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/scopes/{dana_family.pk}/")
    expect(page.locator("main .messages .message.success")).to_have_count(1)
    if language == "en":
        expect(page.locator("main .messages .message.success")).to_have_text(re.compile(r"^Forgotten: 1 card\b"))
    shot(page, f"keyboard-{language}-forgotten")
    assert not Card.objects.filter(pk=card.pk).exists()
