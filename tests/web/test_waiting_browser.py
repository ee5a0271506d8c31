"""What waits for a person, in a real browser (issue 20): alice has a proposal
to review, an invitation and a guess about her; she signs in, sees the count
in the header and the "Waiting for you" section, and follows each link to
where it is decided. A card approved in the queue says who approved it; the
scope page filters by the agent that wrote; on a phone the filter folds away
and nothing scrolls sideways."""

from __future__ import annotations

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from cards.drafts import CardDraft
from cards.services import card_remember
from review.models import Candidate
from review.services.candidates import candidate_approve
from scopes.invites import invitation_create
from scopes.services import membership_set, scope_create
from scopes.tokens import token_create
from tests.factories import UserFactory, family_scope
from tests.web.test_browser import PASSWORD, browser_type_launch_args, shot, sign_in  # noqa: F401  (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

PHONE = {"width": 390, "height": 844}


def _candidate(scope, author, value):
    return Candidate.objects.create(scope=scope, author=author, kind="state", label="skill", subject="me",
                                    value=value, quote=f"I took up {value}", message_at=timezone.now(),
                                    extractor="patterns", session="s-42")


@pytest.fixture
def lins(db):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    rita = UserFactory(username="rita", display_name="Rita R.")
    for person in (alice, bob, rita):
        person.set_password(PASSWORD)
        person.save()
    family = family_scope(owner=alice, name="The Lins")
    membership_set(scope=family, user=bob, role="member")
    membership_set(scope=family, user=rita, role="reviewer")
    # Approved by rita from the queue: its card says so.
    approved = candidate_approve(candidate=_candidate(family, bob, "Pottery"), reviewer=rita)
    # Waiting for alice: one proposal to review, an invitation, a guess about her.
    _candidate(family, bob, "Chess")
    club = scope_create(name="Book club", kind="team", creator=bob)
    invitation = invitation_create(scope=club, username="alice", role="member", invited_by=bob)
    guess = card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(
        kind="state", label="likes", subject="me", value="opera", tag="hypothesis", confidence=0.6)).card
    # Written by agents, and by bob himself, with long words a phone must wrap.
    kitchen, _ = token_create(user=alice, name="kitchen-bot", can_write=True, scopes=[family])
    for value in ("Knitting", "Sourdough baking with a very long description nobody shortens"):
        card_remember(scope=family, actor=alice, draft=CardDraft(kind="state", label="skill", subject="me",
                                                                 value=value, source_token=kitchen))
    card_remember(scope=family, actor=bob, draft=CardDraft(kind="state", label="employer", subject="me",
                                                           value="Harbor Logistics International Limited"))
    return {"family": family, "approved": approved, "invitation": invitation, "guess": guess, "kitchen": kitchen}


def test_what_waits_is_seen_and_each_link_leads_where_it_is_decided(live_server, page, lins):
    base, family = live_server.url, lins["family"]
    sign_in(page, base, "alice")
    badge = page.get_by_role("link", name="3 things wait for you")
    expect(badge).to_have_text("3")
    waiting = page.locator("section.waiting")
    expect(waiting.get_by_role("heading", name="Waiting for you")).to_be_visible()
    expect(waiting.get_by_role("listitem")).to_have_count(3)
    shot(page, "waiting-home")

    waiting.get_by_role("link", name="1 proposal to review in The Lins").click()
    expect(page.get_by_role("heading", name="Review The Lins")).to_be_visible()
    expect(page.get_by_text("I took up Chess")).to_be_visible()

    page.goto(f"{base}/")
    waiting.get_by_role("link", name="Bob invites you to Book club").click()
    page.wait_for_url(f"**/#invitation-{lins['invitation'].pk}")
    expect(page.get_by_role("button", name="Accept the invitation to Book club")).to_be_visible()

    waiting.get_by_role("link", name="A guess about you: likes — opera").click()
    page.wait_for_url(f"**/cards/{lins['guess'].pk}/")
    expect(page.get_by_role("heading", name="A guess (confidence 0.60)")).to_be_visible()

    # The header leads home to the list from any page.
    page.get_by_role("link", name="3 things wait for you").click()
    expect(page.get_by_role("heading", name="Waiting for you")).to_be_visible()

    page.goto(f"{base}/cards/{lins['approved'].pk}/")
    expect(page.locator(".provenance")).to_contain_text("approved by Rita R. on")
    shot(page, "card-approved-by")

    # On a wide screen every filter field shows at once; choose the agent that wrote.
    page.goto(f"{base}/scopes/{family.pk}/")
    expect(page.get_by_label("Written by")).to_be_visible()
    page.get_by_label("Written by").select_option(label="“kitchen-bot”, agent of Alice")
    page.get_by_role("button", name="Filter", exact=True).click()
    cards = page.locator("#card-list")
    expect(cards).to_contain_text("Knitting")
    expect(cards).not_to_contain_text("Harbor Logistics")
    expect(cards).not_to_contain_text("Pottery")
    shot(page, "scope-by-agent")


def test_on_a_phone_the_filter_folds_away_and_nothing_scrolls_sideways(live_server, page, lins):
    base, family = live_server.url, lins["family"]
    sign_in(page, base, "alice")
    page.set_viewport_size(PHONE)
    page.goto(f"{base}/scopes/{family.pk}/")
    summary = page.locator("details.filter-box > summary")
    expect(summary).to_be_visible()
    expect(page.get_by_label("Written by")).to_be_hidden()
    expect(page.locator("#card-list")).to_contain_text("Harbor Logistics International Limited")
    # The rows stack: the page is no wider than the screen.
    widths = page.evaluate("[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]")
    assert widths[0] <= widths[1], widths
    shot(page, "scope-filter-phone")
    summary.click()
    expect(page.get_by_label("Written by")).to_be_visible()
    # A filter set: the disclosure comes back open, saying so.
    page.goto(f"{base}/scopes/{family.pk}/?by=agent-{lins['kitchen'].pk}")
    expect(page.get_by_label("Written by")).to_be_visible()
    expect(summary).to_contain_text("filters set")
    widths = page.evaluate("[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]")
    assert widths[0] <= widths[1], widths
