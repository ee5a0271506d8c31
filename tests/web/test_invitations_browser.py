"""Membership by consent in a real browser: an owner invites by name from the
members page, the invitee finds the invitation on their home page and accepts
it, and only then does the scope open for them."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.factories import UserFactory
from tests.web.test_browser import PASSWORD, browser_type_launch_args, shot, sign_in  # noqa: F401  (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture
def people(db):
    from tests.factories import family_scope

    dana, sam = UserFactory(username="dana"), UserFactory(username="sam")
    for person in (dana, sam):
        person.set_password(PASSWORD)
        person.save()
    return {"dana": dana, "sam": sam, "family": family_scope(owner=dana, name="The Parks")}


def test_invite_by_name_then_accept_from_the_home_page(live_server, page, people):
    base, family = live_server.url, people["family"]
    sign_in(page, base, "dana")
    page.goto(f"{base}/scopes/{family.pk}/members/")
    invite = page.locator(f"form[action='/scopes/{family.pk}/members/add/']")
    invite.get_by_label("Username").fill("sam")
    invite.get_by_label("Role").select_option("member")
    invite.get_by_label("Relation").fill("husband")
    invite.get_by_role("button", name="Invite").click()
    expect(page.get_by_text("Invited sam as member")).to_be_visible()
    expect(page.get_by_role("button", name="Withdraw the invitation of sam")).to_be_visible()
    shot(page, "members-invited")

    guest = page.context.browser.new_context().new_page()
    sign_in(guest, base, "sam")
    expect(guest.get_by_role("heading", name="Invitations")).to_be_visible()
    expect(guest.locator("ul.ladder").get_by_role("link", name="The Parks")).to_have_count(0)  # not on the ladder before accepting
    shot(guest, "home-invitation")
    guest.get_by_role("button", name="Accept the invitation to The Parks").click()
    expect(guest.get_by_role("heading", name="The Parks")).to_be_visible()
    expect(guest.get_by_text("You joined The Parks as member.")).to_be_visible()
    expect(guest.get_by_role("button", name="Leave The Parks")).to_be_visible()
    guest.goto(f"{base}/")
    expect(guest.locator("ul.ladder").get_by_role("link", name="The Parks")).to_be_visible()
    expect(guest.get_by_role("heading", name="Invitations")).to_have_count(0)
