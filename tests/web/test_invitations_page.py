"""The dashboard's side of membership by consent: the invitee answers from the
home page; a scope page offers leaving to every member but the last owner."""

import pytest

from scopes.invites import invitation_create
from scopes.models import Invitation, Membership

pytestmark = pytest.mark.django_db


@pytest.fixture
def invitation(household, alice):
    return invitation_create(scope=household["family"], username="mallory", role="member", invited_by=alice,
                             relation="cousin")


def test_the_home_page_lists_open_invitations_with_accept_and_decline(household, pages, invitation):
    page = pages(household["mallory"]).get("/").content.decode()
    assert "Alice invites you to" in page and "The Lins" in page and "as member, as their cousin" in page
    assert f'action="/invitations/{invitation.pk}/accept/"' in page
    assert f'action="/invitations/{invitation.pk}/decline/"' in page
    # The scope itself is still not theirs: not on the ladder, not to open.
    assert f'href="/scopes/{household["family"].pk}/"' not in page
    assert pages(household["mallory"]).get(f"/scopes/{household['family'].pk}/").status_code == 404
    # Nobody else sees it.
    assert "invites you" not in pages(household["bob"]).get("/").content.decode()


def test_accepting_from_the_home_page_opens_the_scope(household, pages, invitation):
    client = pages(household["mallory"])
    answer = client.post(f"/invitations/{invitation.pk}/accept/", follow=True)
    assert answer.status_code == 200 and b"You joined The Lins as member." in answer.content
    assert b"Kyoto" in answer.content  # the scope page, with the family's cards
    assert "invites you" not in client.get("/").content.decode()
    assert f'href="/scopes/{household["family"].pk}/"' in client.get("/").content.decode()


def test_declining_from_the_home_page_keeps_the_scope_closed(household, pages, invitation):
    client = pages(household["mallory"])
    answer = client.post(f"/invitations/{invitation.pk}/decline/", follow=True)
    assert answer.status_code == 200 and b"You declined the invitation to The Lins." in answer.content
    assert "invites you" not in answer.content.decode()
    assert client.get(f"/scopes/{household['family'].pk}/").status_code == 404
    assert Invitation.objects.get(pk=invitation.pk).status == "declined"


def test_a_scope_page_offers_leaving_and_leaving_closes_it(household, pages):
    family, bob = household["family"], household["bob"]
    client = pages(bob)
    assert b"Leave The Lins</button>" in client.get(f"/scopes/{family.pk}/").content
    answer = client.post(f"/scopes/{family.pk}/leave/", follow=True)
    assert answer.status_code == 200 and b"You left The Lins." in answer.content
    assert client.get(f"/scopes/{family.pk}/").status_code == 404
    assert not Membership.objects.filter(scope=family, user=bob).exists()


def test_the_last_owner_is_offered_no_leaving_and_cannot_leave(household, pages, alice):
    family = household["family"]
    page = pages(alice).get(f"/scopes/{family.pk}/").content.decode()
    assert "Leave The Lins</button>" not in page and "You are its last owner" in page
    answer = pages(alice).post(f"/scopes/{family.pk}/leave/", follow=True)
    assert b"at least one owner" in answer.content
    assert Membership.objects.get(scope=family, user=alice).role == "owner"


def test_a_personal_scope_offers_no_leaving(pages, alice):
    page = pages(alice).get(f"/scopes/{alice.personal_scope.pk}/").content.decode()
    assert "leave-heading" not in page
