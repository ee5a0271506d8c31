"""The main journeys, walked in both languages (English, and Traditional Chinese asked for by a Taiwanese
browser) at desktop and phone width: sign in, read a card, approve what the review queue proposes, forget a
card, connect an agent. Every page on the way says its language, is headed in Chinese when it is served in
Chinese, and never scrolls sideways. The walk finds its way by urls, ids, field names and the data it wrote,
never by a page's words, so one walk serves both languages. Screenshots:
journey-<en|zh-hant>-<desktop|phone>-<step>.png (test-artifacts/screenshots/)."""

from __future__ import annotations

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from cards.models import Card
from review.models import Candidate, CandidateStatus
from scopes.models import AgentToken
from tests.web.browser_languages import LOCALES, WIDTHS, page_in, reads_in, sign_in_by_fields, speaks  # noqa: F401
from tests.web.test_browser import (  # noqa: F401  (fixtures)
    browser_type_launch_args, dana, dana_family, shot,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

FITS_THE_WIDTH = "document.documentElement.scrollWidth <= window.innerWidth"


@pytest.mark.parametrize("language", LOCALES)
@pytest.mark.parametrize("screen", WIDTHS)
def test_sign_in_read_review_forget_and_connect_an_agent(live_server, page_in, dana, dana_family, screen,
                                                         language):
    card = Card.objects.get(scope=dana_family, label__key="address")
    proposed = Candidate.objects.create(
        scope=dana_family, author=dana, kind="state", label="skill", subject="me", value="Rust",
        quote="I have been writing Rust all year", message_at=timezone.now(), extractor="patterns")
    base, family = live_server.url, dana_family.pk
    page = page_in(language, WIDTHS[screen])
    main = page.locator("main")

    def arrived(step: str) -> None:
        reads_in(page, language)
        shot(page, f"journey-{language}-{screen}-{step}")
        assert page.evaluate(FITS_THE_WIDTH), (
            f"{step} ({page.url}) scrolls sideways: {page.evaluate('document.documentElement.scrollWidth')}px "
            f"in {page.evaluate('window.innerWidth')}px")

    # Sign in: the first visit asks for it, in the browser's language.
    page.goto(f"{base}/")
    page.wait_for_url(f"{base}/accounts/login/?next=/")
    arrived("sign-in")
    sign_in_by_fields(page, base, "dana")
    expect(main.locator(f"a[href='/scopes/{family}/']").first).to_be_visible()
    arrived("home")

    # Read a card: the family from home, the address from the family's list.
    main.locator(f"a[href='/scopes/{family}/']").first.click()
    page.wait_for_url(f"{base}/scopes/{family}/")
    arrived("scope")
    main.locator(f"a[href='/cards/{card.pk}/']").click()
    page.wait_for_url(f"{base}/cards/{card.pk}/")
    expect(main).to_contain_text("Busan")
    arrived("card")

    # Review: the queue from the header, the family's from the index; approve what is proposed as it stands.
    page.locator("header nav a[href='/review/']").click()
    page.wait_for_url(f"{base}/review/")
    arrived("review")
    main.locator(f"a[href='/scopes/{family}/review/']").click()
    page.wait_for_url(f"{base}/scopes/{family}/review/")
    candidate = page.locator(f"#candidate-{proposed.pk}")
    expect(candidate).to_contain_text("I have been writing Rust all year")
    arrived("review-queue")
    candidate.locator("button[type=submit][formnovalidate]").click()
    expect(candidate).to_have_count(0)
    expect(main.locator(".messages .message.success")).to_have_count(1)
    arrived("approved")
    proposed.refresh_from_db()
    assert proposed.status == CandidateStatus.APPROVED and proposed.card.value == "Rust"

    # Forget the card read above, through its confirmation.
    page.goto(f"{base}/cards/{card.pk}/")
    main.locator(f"a[href='/cards/{card.pk}/forget/']").click()
    page.wait_for_url(f"{base}/cards/{card.pk}/forget/")
    expect(main).to_contain_text("Busan")
    arrived("forget")
    main.locator("form:not([action]) button[type=submit]").click()
    page.wait_for_url(f"{base}/scopes/{family}/")
    expect(main.locator(".messages .message.success")).to_have_count(1)
    expect(main.locator(f"a[href='/cards/{card.pk}/']")).to_have_count(0)
    arrived("forgotten")
    assert not Card.objects.filter(pk=card.pk).exists()

    # Connect an agent: a token for the family, then the page that shows how to use it.
    page.locator("header nav a[href='/tokens/']").click()
    page.wait_for_url(f"{base}/tokens/")
    arrived("tokens")
    form = main.locator("form[action='/tokens/new/']")
    form.locator("input[name=name]").fill("kitchen assistant")
    form.locator(f"input[name=scopes][value='{family}']").check()
    form.locator("select[name=access]").select_option("read")
    form.locator("button[type=submit]").click()
    page.wait_for_url(f"{base}/tokens/*/connect/")
    token = AgentToken.objects.get(user=dana, name="kitchen assistant")
    assert page.url == f"{base}/tokens/{token.pk}/connect/"
    expect(main.locator("h1")).to_contain_text("kitchen assistant")
    arrived("connect")


def test_the_language_switch_is_remembered_on_this_device_and_for_the_person(live_server, page_in, dana):
    """An English browser: the header's switch turns the sign-in page Chinese, the choice outlives a reload and
    signing in, and, pressed again once signed in, follows the person to a device that never chose."""
    base = live_server.url
    page = page_in("en", WIDTHS["desktop"])
    page.goto(f"{base}/accounts/login/")
    speaks(page, "en")
    page.locator("header form.language-switch button[value='zh-hant']").click()
    reads_in(page, "zh-hant")
    assert page.url == f"{base}/accounts/login/"
    page.reload()
    reads_in(page, "zh-hant")
    shot(page, "language-switch-sign-in")
    sign_in_by_fields(page, base, "dana")
    reads_in(page, "zh-hant")
    dana.refresh_from_db()
    assert dana.language == ""  # chosen before signing in: this device's choice only
    page.locator("header form.language-switch button[value='en']").click()
    reads_in(page, "en")
    page.locator("header form.language-switch button[value='zh-hant']").click()
    reads_in(page, "zh-hant")
    dana.refresh_from_db()
    assert dana.language == "zh-hant"
    elsewhere = page_in("en", WIDTHS["phone"])
    sign_in_by_fields(elsewhere, base, "dana")
    reads_in(elsewhere, "zh-hant")
    shot(elsewhere, "language-switch-followed")
