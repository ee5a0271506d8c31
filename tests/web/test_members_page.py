"""The members page: invite, change, remove, the last owner kept, invitations withdrawn, invites revoked."""

import re

import pytest

from scopes.invites import invite_create, invite_open
from scopes.models import Invitation, Membership
from scopes.principals import Principal, scope_ids_for
from scopes.services import membership_set
from scopes.relations import relation_to

pytestmark = pytest.mark.django_db


def test_members_page_lists_roles_with_their_effect(household, pages, alice):
    page = pages(alice).get(f"/scopes/{household['family'].pk}/members/").content.decode()
    assert "victor" in page and "read only" in page and "read and write cards" in page
    assert f'href="/scopes/{household["family"].pk}/members/"' in pages(alice).get(
        f"/scopes/{household['family'].pk}/").content.decode()


def test_adding_by_username_invites_and_grants_nothing_until_accepted(household, pages, alice):
    family, mallory = household["family"], household["mallory"]
    answer = pages(alice).post(f"/scopes/{family.pk}/members/add/",
                               {"username": "mallory", "role": "reviewer", "relation": "aunt"}, follow=True)
    assert answer.status_code == 200 and b"Invited mallory as reviewer" in answer.content
    assert b"Withdraw the invitation of mallory" in answer.content  # waiting, on the members page
    assert family.pk not in set(scope_ids_for(Principal(mallory), "view").values_list("id", flat=True))
    assert not Membership.objects.filter(scope=family, user=mallory).exists()
    invitation = Invitation.objects.get(scope=family, username="mallory")
    assert pages(mallory).post(f"/invitations/{invitation.pk}/accept/").status_code == 302
    # The relation is what the new member is to the person who invited them.
    assert relation_to(scope_id=family.pk, member_id=mallory.pk, of_id=alice.pk) == "aunt"
    assert family.pk in set(scope_ids_for(Principal(mallory), "review").values_list("id", flat=True))


def test_a_name_no_one_has_is_invited_in_the_same_words(household, pages, alice):
    family = household["family"]
    said = {}
    for name in ("mallory", "nobody"):
        answer = pages(alice).post(f"/scopes/{family.pk}/members/add/", {"username": name, "role": "viewer"},
                                   follow=True)
        assert answer.status_code == 200
        page = answer.content.decode()
        said[name] = (re.findall(r'<li class="message[^"]*">([^<]*)</li>', page.replace(name, "NAME")),
                      f"Withdraw the invitation of {name}" in page)
    assert said["nobody"] == said["mallory"] == (["Invited NAME as viewer: they join The Lins when they accept."],
                                                 True)


@pytest.mark.parametrize("username, message", [("no body", b"Enter a valid username")])
def test_add_refusals_are_shown_at_the_username(household, pages, alice, username, message):
    page = pages(alice).post(f"/scopes/{household['family'].pk}/members/add/", {"username": username,
                                                                              "role": "viewer"})
    assert page.status_code == 400
    assert b'id="add_username_error"' in page.content and message in page.content
    assert Membership.objects.get(scope=household["family"], user=household["bob"]).role == "member"
    assert not Invitation.objects.exists()


def test_an_invitation_is_withdrawn_from_the_members_page(household, pages, alice):
    family = household["family"]
    pages(alice).post(f"/scopes/{family.pk}/members/add/", {"username": "mallory", "role": "viewer"})
    invitation = Invitation.objects.get(scope=family, username="mallory")
    assert pages(alice).post(f"/scopes/{family.pk}/invitations/{invitation.pk}/withdraw/").status_code == 302
    invitation.refresh_from_db()
    assert invitation.status == "withdrawn"
    assert b"invites you" not in pages(household["mallory"]).get("/").content


def test_adding_an_existing_member_changes_their_role_as_the_api_does(household, pages, alice):
    family, bob = household["family"], household["bob"]
    client = pages(alice)
    answer = client.post(f"/scopes/{family.pk}/members/add/", {"username": "bob", "role": "viewer",
                                                               "relation": "brother"}, follow=True)
    assert answer.status_code == 200 and b"was already a member; now viewer" in answer.content
    membership = Membership.objects.get(scope=family, user=bob)
    assert membership.role == "viewer"
    assert relation_to(scope_id=family.pk, member_id=bob.pk, of_id=alice.pk) == "brother"
    assert family.pk not in set(scope_ids_for(Principal(bob), "write").values_list("id", flat=True))


def test_an_admin_adding_an_existing_owner_as_viewer_is_refused(household, pages, alice):
    family, bob = household["family"], household["bob"]
    membership_set(scope=family, user=bob, role="admin")
    answer = pages(bob).post(f"/scopes/{family.pk}/members/add/", {"username": "alice", "role": "viewer"})
    assert answer.status_code == 403
    assert Membership.objects.get(scope=family, user=alice).role == "owner"


def test_change_role_and_relation(household, pages, alice):
    url = f"/scopes/{household['family'].pk}/members/{household['victor'].pk}/"
    assert pages(alice).post(url, {"role": "member", "relation": "cousin"}).status_code == 302
    membership = Membership.objects.get(scope=household["family"], user=household["victor"])
    assert membership.role == "member"
    assert relation_to(scope_id=household["family"].pk, member_id=household["victor"].pk, of_id=alice.pk) == "cousin"


def test_the_last_owner_cannot_be_removed_or_demoted_and_the_page_says_why(household, pages, alice):
    family = household["family"]
    for url, data in ((f"/scopes/{family.pk}/members/{alice.pk}/remove/", {}),
                      (f"/scopes/{family.pk}/members/{alice.pk}/", {"role": "admin"})):
        page = pages(alice).post(url, data)
        assert page.status_code == 409 and b"at least one owner" in page.content
    assert Membership.objects.get(scope=family, user=alice).role == "owner"


def test_an_admin_may_not_make_or_unmake_owners(household, pages, alice):
    family, bob = household["family"], household["bob"]
    membership_set(scope=family, user=bob, role="admin")
    client = pages(bob)
    assert client.post(f"/scopes/{family.pk}/members/{household['victor'].pk}/",
                       {"role": "owner"}).status_code == 403
    assert client.post(f"/scopes/{family.pk}/members/{alice.pk}/remove/").status_code == 403
    assert client.post(f"/scopes/{family.pk}/members/{household['victor'].pk}/remove/").status_code == 302
    assert Membership.objects.filter(scope=family).count() == 2


def test_open_invites_are_listed_and_revoked(household, pages, alice):
    family = household["family"]
    invite, raw = invite_create(scope=family, role="viewer", relation="neighbour", created_by=alice)
    page = pages(alice).get(f"/scopes/{family.pk}/members/").content
    assert b"neighbour" in page and f"/invites/{invite.pk}/revoke/".encode() in page
    assert pages(alice).post(f"/scopes/{family.pk}/invites/{invite.pk}/revoke/").status_code == 302
    with pytest.raises(Exception):
        invite_open(raw)
    assert b"neighbour" not in pages(alice).get(f"/scopes/{family.pk}/members/").content


def test_an_invite_of_another_scope_is_404(household, pages, alice, scope):
    other, _ = invite_create(scope=scope, role="viewer", created_by=alice)
    answer = pages(alice).post(f"/scopes/{household['family'].pk}/invites/{other.pk}/revoke/")
    assert answer.status_code == 404


def test_removing_a_member_asks_first(household, pages, alice):
    family, victor = household["family"], household["victor"]
    asked = pages(alice).get(f"/scopes/{family.pk}/members/{victor.pk}/remove/")
    assert asked.status_code == 200 and b"Remove victor from The Lins?" in asked.content
    assert family.memberships.filter(user=victor).exists()
    assert pages(household["bob"]).get(f"/scopes/{family.pk}/members/{victor.pk}/remove/").status_code == 403
    listing = pages(alice).get(f"/scopes/{family.pk}/members/").content
    assert f'href="/scopes/{family.pk}/members/{victor.pk}/remove/"'.encode() in listing


def test_a_relation_in_free_words_is_kept_on_every_form_and_never_a_500(household, pages, alice):
    family, bob, mallory = household["family"], household["bob"], household["mallory"]
    # The invite link: "friend from school" once answered a 500.
    made = pages(alice).post(f"/scopes/{family.pk}/invites/", {"role": "member", "relation": "friend from school"})
    assert made.status_code == 200 and b"friend from school" in made.content
    joined = pages(mallory).post(re.search(r'/invite/[^/"]+/', made.content.decode()).group(0))
    assert joined.status_code == 302
    assert relation_to(scope_id=family.pk, member_id=mallory.pk, of_id=alice.pk) == "friend"
    # The change form keeps the words as said, and shows them again.
    assert pages(alice).post(f"/scopes/{family.pk}/members/{bob.pk}/",
                             {"role": "member", "relation": "running buddy"}).status_code == 302
    page = pages(alice).get(f"/scopes/{family.pk}/members/").content.decode()
    assert "your running buddy" in page and 'value="running buddy"' in page and "your friend from school" in page
    # Too many words: a form error on the page, never a 500.
    for url, body in [(f"/scopes/{family.pk}/invites/", {"role": "member", "relation": "x" * 101}),
                      (f"/scopes/{family.pk}/members/add/", {"username": "carol", "role": "member",
                                                             "relation": "x" * 101})]:
        refused = pages(alice).post(url, body)
        assert refused.status_code == 400 and b'class="error' in refused.content, url
    refused = pages(alice).post(f"/scopes/{family.pk}/members/{bob.pk}/", {"role": "member", "relation": "x" * 101})
    assert refused.status_code == 409 and b"at most 100 characters" in refused.content
