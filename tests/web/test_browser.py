"""The dashboard in a real browser (Debian's Chromium, headless) against a live
server: sign in, create a family, invite a member, see a superseded address on
the timeline picture, forget a card. A screenshot of each page goes to
test-artifacts/screenshots/. Every read of a page waits, through Playwright's
`expect(...)` (a bare `is_visible()` or `text_content()` reads the page as it is
at that instant, and fails on a loaded machine): tests/web/test_browser_waits.py
holds that."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import expect

from scopes.models import Membership, User
from tests.factories import UserFactory

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(settings.BASE_DIR) / "test-artifacts" / "screenshots"
PASSWORD = "correct horse battery staple"

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture(scope="session")
def browser_type_launch_args():
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: run `make test` (it installs it) "
                    "or `apt-get install -y chromium`.", pytrace=False)
    # Playwright's sync API keeps an event loop in this thread for the rest of the
    # session; the ORM calls stay synchronous (browser tests run last: conftest).
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    return {"executable_path": CHROMIUM, "headless": True, "args": ["--no-sandbox"]}


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def sign_in(page, base: str, username: str) -> None:
    page.goto(f"{base}/")
    shot(page, "sign-in")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{base}/")


def add_card(page, label: str, value: str) -> None:
    form = page.locator("form[action$='/cards/new/']")
    form.get_by_label("Label").fill(label)
    form.get_by_label("Value").fill(value)
    form.get_by_role("button", name="Remember").click()
    page.wait_for_url("**/cards/*/", timeout=60_000)  # the new card's page


@pytest.fixture
def dana(db):
    user = UserFactory(username="dana")
    user.set_password(PASSWORD)
    user.save()
    return user


def test_family_member_addresses_timeline_and_forget(live_server, page, dana):
    base = live_server.url
    sign_in(page, base, "dana")
    expect(page.get_by_role("heading", name="Your memory")).to_be_visible()
    shot(page, "home")

    page.get_by_label("Name").fill("The Lins")
    page.get_by_label("Kind").select_option("family")
    page.get_by_role("button", name="Create scope").click()
    page.get_by_role("heading", name="The Lins").wait_for()
    shot(page, "scope")

    # A member joins through an invite link.
    page.get_by_label("Role").select_option("member")
    page.get_by_label("Relation").fill("husband")
    page.get_by_role("button", name="Create invite link").click()
    invite = page.get_by_label("Invite link")
    expect(invite).to_have_value(re.compile(r"^https?://"))
    link = invite.input_value()
    shot(page, "invite-created")
    guest = page.context.browser.new_context().new_page()
    guest.goto(link)
    shot(guest, "invite-sign-up")
    guest.get_by_label("Username").fill("sam")
    guest.get_by_label("Password", exact=True).fill("a long enough phrase 7")
    guest.get_by_label("Password again").fill("a long enough phrase 7")
    guest.get_by_role("button", name="Sign up and join").click()
    guest.get_by_role("heading", name="The Lins").wait_for()
    assert Membership.objects.get(user=User.objects.get(username="sam"), scope__name="The Lins").role == "member"
    page.get_by_role("link", name="Back to The Lins").click()

    # Two addresses: the second supersedes the first on the timeline picture.
    for town in ("Taipei", "Kyoto"):
        add_card(page, "address", town)
        page.get_by_role("heading", name="Timeline").wait_for()
        if town == "Taipei":
            page.get_by_role("link", name="← The Lins").click()
    shot(page, "card-timeline")
    expect(page.locator("svg rect.tl-bar")).to_have_count(2)
    expect(page.locator("svg rect.tl-current")).to_have_count(1)
    expect(page.locator("svg rect.tl-current title")).to_contain_text("Kyoto")
    expect(page.locator("svg desc")).to_contain_text("Taipei")

    # Forget the current address, through the confirmation page.
    page.get_by_role("link", name="Forget this card…").click()
    shot(page, "forget-confirm")
    page.get_by_role("button", name="Forget it").click()
    # The receipt, in words: what went, counted, never what it said.
    expect(page.get_by_text(re.compile(r"^Forgotten: 1 card\b"))).to_be_visible()
    shot(page, "scope-after-forget")
    expect(page.locator("#card-list")).not_to_contain_text("Kyoto")


def test_filters_work_with_htmx_and_the_layout_fits_a_phone(live_server, page, dana):
    base = live_server.url
    page.set_viewport_size({"width": 375, "height": 740})
    sign_in(page, base, "dana")
    page.get_by_role("link", name=dana.personal_scope.name).click()
    for value in ("Rust", "Go"):
        add_card(page, "skill", value)
        shot(page, f"added-{value}")
        page.get_by_role("link", name=f"← {dana.personal_scope.name}").click()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.evaluate("window.stillThisPage = true")  # a full page load would drop it
    page.locator("details.filter-box summary").click()  # on a phone the filter is folded away
    page.locator("form.filters").get_by_label("Text").fill("rus")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url("**q=rus**")
    expect(page.locator("#card-list")).to_contain_text("Rust")
    expect(page.locator("#card-list tbody")).not_to_contain_text("Go")
    # Read once the swap is seen above: a full page load would have dropped the flag.
    assert page.evaluate("window.stillThisPage === true"), "the filter reloaded the page instead of htmx swapping"
    assert errors == [], errors  # a Content Security Policy refusal would show here
    shot(page, "scope-filtered-phone")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375 + 1, f"the page scrolls sideways on a phone: {width}px"


@pytest.fixture
def dana_family(dana):
    from cards.drafts import CardDraft
    from cards.services import card_remember
    from tests.factories import family_scope

    family = family_scope(owner=dana, name="The Parks")
    card_remember(scope=family, actor=dana, draft=CardDraft(kind="state", label="address", subject="me",
                                                            value="Busan"))
    return family


def test_approve_a_candidate_in_the_review_queue(live_server, page, dana, dana_family):
    from django.utils import timezone

    from review.models import Candidate, CandidateStatus

    proposed = Candidate.objects.create(
        scope=dana_family, author=dana, kind="state", label="skill", subject="me", value="Rust",
        quote="I have been writing Rust all year", message_at=timezone.now(), extractor="patterns",
        rule="skill_statement", session="s1", message="m7")
    base = live_server.url
    sign_in(page, base, "dana")
    page.get_by_role("link", name="Review", exact=True).click()
    shot(page, "review-index")
    page.get_by_role("link", name="The Parks").click()
    page.get_by_role("heading", name="Review The Parks").wait_for()
    expect(page.get_by_text("I have been writing Rust all year")).to_be_visible()
    shot(page, "review-queue")
    page.get_by_role("button", name="Approve me skill as proposed").click()
    page.get_by_text("Approved:").wait_for()
    shot(page, "review-approved")
    proposed.refresh_from_db()
    assert proposed.status == CandidateStatus.APPROVED and proposed.card.value == "Rust"
    expect(page.get_by_text("Nothing proposed waits here.")).to_be_visible()


def test_create_a_token_and_use_it_over_http(live_server, page, dana, dana_family):
    import json
    import urllib.request

    base = live_server.url
    sign_in(page, base, "dana")
    page.get_by_role("link", name="Tokens").click()
    shot(page, "tokens")
    page.get_by_label("Name").fill("kitchen assistant")
    page.get_by_label(str(dana_family)).check()
    page.get_by_label("Access").select_option("read")
    page.get_by_role("button", name="Create token").click()
    page.get_by_role("heading", name="Connect an agent: kitchen assistant").wait_for()
    field = page.get_by_label("Token", exact=True)
    expect(field).to_have_value(re.compile(r"^memsite_"))
    secret = field.input_value()
    shot(page, "token-created")
    request = urllib.request.Request(f"{base}/api/v1/cards/?scope={dana_family.pk}",
                                     headers={"Authorization": f"Bearer {secret}", "Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.status == 200
        body = json.loads(answer.read())
    assert [card["value"] for card in body["results"]] == ["Busan"]
    page.get_by_role("link", name="Tokens", exact=True).click()
    # Once the tokens page has loaded again: this read once ran on the page still showing the secret.
    expect(page.get_by_role("row", name="kitchen assistant")).to_be_visible()
    page.get_by_role("link", name="Revoke kitchen assistant").click()
    page.get_by_role("heading", name="Revoke “kitchen assistant”?").wait_for()
    shot(page, "token-revoke-confirm")
    page.get_by_role("button", name="Revoke kitchen assistant").click()
    page.get_by_text("Revoked kitchen assistant").wait_for()


def test_members_page_on_a_phone(live_server, page, dana, dana_family):
    page.set_viewport_size({"width": 375, "height": 740})
    base = live_server.url
    sign_in(page, base, "dana")
    page.goto(f"{base}/scopes/{dana_family.pk}/members/")
    page.get_by_role("heading", name="Members of The Parks").wait_for()
    page.get_by_role("link", name="Remove dana").click()
    page.get_by_role("heading", name="Remove dana from The Parks?").wait_for()
    page.get_by_role("button", name="Remove dana").click()
    page.get_by_text("at least one owner").wait_for()
    shot(page, "members-last-owner-phone")


def test_every_other_page_renders_and_signing_in_works_from_the_keyboard(live_server, page, dana, dana_family):
    """The pages the flows above do not pass through, each with a screenshot;
    and signing in with the keyboard alone (Tab, typing, Enter)."""
    base = live_server.url
    page.goto(f"{base}/")
    page.keyboard.press("Tab")  # the skip link, then the first field, in document order
    page.get_by_label("Username").focus()
    page.keyboard.type("dana")
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/")
    shot(page, "home-with-health-chart")
    for path, name, text in (("/entities/", "entities", "Dana"), ("/ask/", "ask", "Ask"),
                             ("/accounts/password/", "password-change", "Password"),
                             (f"/scopes/{dana_family.pk}/members/", "members", "owner"),
                             ("/review/", "review-index-empty", "Review")):
        response = page.goto(f"{base}{path}")
        assert response.status == 200, path
        expect(page.locator("body"), path).to_contain_text(text)
        shot(page, name)
    page.goto(f"{base}/ask/?form=answer&scope={dana_family.pk}&subject=me&label=address")
    expect(page.locator("body")).to_contain_text("Busan")
    shot(page, "ask-answer")
