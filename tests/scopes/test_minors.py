"""Minors and guardians (issue 16, "Roles that fit a household"): a child in the
family could create read+write tokens and team and enterprise scopes. Now a
family's owner marks a member as a minor (API and members page); a minor
creates no tokens and no scopes (403 `minor_not_allowed`, API and dashboard),
and their guardians — the family's owners — see and revoke their tokens."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from scopes.models import AgentToken, Invitation, Invite, Membership, Scope
from scopes.services import membership_set
from scopes.tokens import token_create
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def family(alice):
    """alice owns the family; sam is an admin; kai a member, and a child."""
    home = family_scope(owner=alice, name="The Lins")
    sam, kai = UserFactory(username="sam"), UserFactory(username="kai")
    membership_set(scope=home, user=sam, role="admin")
    membership_set(scope=home, user=kai, role="member")
    return {"scope": home, "sam": sam, "kai": kai}


def session(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def page_session(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def mark(who, scope, username: str, minor: bool = True):
    return session(who).patch(f"/api/v1/scopes/{scope.pk}/members/{username}/", {"minor": minor}, format="json")


def test_a_child_marked_as_a_minor_can_no_longer_create_tokens_or_scopes(alice, family):
    kai, home = family["kai"], family["scope"]
    child = session(kai)
    # The reproduction: unmarked, a child makes a read+write token and an enterprise scope.
    assert child.post("/api/v1/tokens/", {"name": "game bot", "access": "read+write", "scopes": ["all"]},
                      format="json").status_code == 201
    assert child.post("/api/v1/scopes/", {"name": "Kai Corp", "kind": "enterprise"},
                      format="json").status_code == 201

    marked = mark(alice, home, "kai")
    assert marked.status_code == 200 and marked.json()["minor"] is True
    tokens, scopes = AgentToken.objects.count(), Scope.objects.count()
    for url, body in [("/api/v1/tokens/", {"name": "bot", "access": "read", "scopes": ["personal"]}),
                      ("/api/v1/tokens/", {"name": "bot", "access": "propose", "scopes": ["personal"]}),
                      ("/api/v1/scopes/", {"name": "Kai Team", "kind": "team"}),
                      ("/api/v1/scopes/", {"name": "Kai Corp 2", "kind": "enterprise"})]:
        refused = child.post(url, body, format="json")
        assert refused.status_code == 403, refused.json()
        assert refused.json()["code"] == "minor_not_allowed"
    assert (AgentToken.objects.count(), Scope.objects.count()) == (tokens, scopes)
    # Reading and writing in the family stays as the role says.
    assert child.post("/api/v1/cards/", {"scope": home.pk, "kind": "state", "subject": "me", "label": "likes",
                                         "value": "lego"}, format="json").status_code == 201

    assert mark(alice, home, "kai", minor=False).json()["minor"] is False
    assert child.post("/api/v1/tokens/", {"name": "bot", "scopes": ["personal"]}, format="json").status_code == 201


def test_only_an_owner_of_a_family_marks_a_minor_and_never_an_owner(alice, family):
    home, sam = family["scope"], family["sam"]
    refused = mark(sam, home, "kai")  # an admin manages members, but is no guardian
    assert refused.status_code == 403 and refused.json()["code"] == "permission_denied"
    assert mark(alice, home, "alice").status_code == 400  # an owner is a guardian, never a minor
    team = Scope.objects.create(name="Platform", kind="team")
    membership_set(scope=team, user=alice, role="owner")
    membership_set(scope=team, user=sam, role="member")
    assert mark(alice, team, "sam").json()["code"] == "validation_error"  # only in a family
    assert not Membership.objects.filter(minor=True).exists()
    mark(alice, home, "kai")
    promoted = session(alice).patch(f"/api/v1/scopes/{home.pk}/members/kai/", {"role": "owner"}, format="json")
    assert promoted.status_code == 400 and Membership.objects.get(user=family["kai"], scope=home).role == "member"
    both = session(alice).patch(f"/api/v1/scopes/{home.pk}/members/kai/", {"role": "owner", "minor": False},
                                format="json")
    assert both.status_code == 200 and (both.json()["role"], both.json()["minor"]) == ("owner", False)


def test_guardians_see_and_revoke_a_minors_tokens_and_nobody_else_does(alice, family):
    kai, sam, home = family["kai"], family["sam"], family["scope"]
    earlier, _ = token_create(user=kai, name="game bot", can_write=True, all_scopes=True)
    mark(alice, home, "kai")
    listed = session(alice).get("/api/v1/tokens/minors/").json()["results"]
    assert [(t["id"], t["user"], t["access"]) for t in listed] == [(earlier.pk, "kai", "read+write")]
    assert session(sam).get("/api/v1/tokens/minors/").json()["results"] == []  # an admin is no guardian
    assert session(sam).delete(f"/api/v1/tokens/{earlier.pk}/").status_code == 404
    stranger = UserFactory(username="mallory")
    assert session(stranger).delete(f"/api/v1/tokens/{earlier.pk}/").status_code == 404
    assert session(alice).delete(f"/api/v1/tokens/{earlier.pk}/").status_code == 204
    earlier.refresh_from_db()
    assert earlier.revoked_at is not None
    own, _ = token_create(user=sam, name="sam's", all_scopes=True)
    assert session(alice).delete(f"/api/v1/tokens/{own.pk}/").status_code == 404  # not a minor: not hers


def test_the_dashboard_marks_minors_refuses_them_and_shows_guardians_their_tokens(alice, family):
    kai, home = family["kai"], family["scope"]
    members = page_session(alice).get(f"/scopes/{home.pk}/members/")
    assert f'action="/scopes/{home.pk}/members/{kai.pk}/minor/"'.encode() in members.content
    assert b"/members/%d/minor/" % alice.pk not in members.content  # no box for an owner
    admin_view = page_session(family["sam"]).get(f"/scopes/{home.pk}/members/")
    assert b"/minor/" not in admin_view.content  # only owners mark minors
    token, _ = token_create(user=kai, name="game bot", can_write=True, all_scopes=True)
    assert page_session(family["sam"]).post(f"/scopes/{home.pk}/members/{kai.pk}/minor/",
                                            {"minor": "on"}).status_code == 403
    answer = page_session(alice).post(f"/scopes/{home.pk}/members/{kai.pk}/minor/", {"minor": "on"})
    assert answer.status_code == 302 and Membership.objects.get(user=kai, scope=home).minor

    child = page_session(kai)
    assert b"cannot make agent tokens" in child.get("/tokens/").content
    refused = child.post("/tokens/new/", {"name": "bot", "scopes": [str(home.pk)], "access": "read", "days": "9"})
    assert refused.status_code == 403 and b"Minors cannot create agent tokens" in refused.content
    assert b"cannot make scopes" in child.get("/").content
    refused = child.post("/scopes/new/", {"name": "Kai Team", "kind": "team"})
    assert refused.status_code == 403 and not Scope.objects.filter(name="Kai Team").exists()
    assert AgentToken.objects.filter(user=kai).count() == 1

    guardian = page_session(alice)
    tokens_page = guardian.get("/tokens/").content.decode()
    assert "Tokens of the minors you look after" in tokens_page and "game bot" in tokens_page
    assert guardian.post(f"/tokens/{token.pk}/revoke/").status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None and token.revoked_at <= timezone.now()
    assert page_session(family["sam"]).post(f"/tokens/{token.pk}/revoke/").status_code == 404


@pytest.fixture
def club(family):
    """A team where kai, a minor, has a manager's role, with another member: what he is refused
    here is refused because he is a minor, not because his role lacks the right."""
    team = Scope.objects.create(name="Chess club", kind="team")
    bob = UserFactory(username="bob")
    membership_set(scope=team, user=family["kai"], role="admin")
    membership_set(scope=team, user=bob, role="member")
    return {"scope": team, "bob": bob}


def test_a_minor_is_refused_invites_role_changes_and_leaving_the_family_through_the_api(alice, family, club):
    kai, home, team = family["kai"], family["scope"], club["scope"]
    mark(alice, home, "kai")
    child = session(kai)
    before = list(Membership.objects.order_by("id").values_list("scope_id", "user_id", "role"))
    for refused in [child.post(f"/api/v1/scopes/{team.pk}/members/", {"username": "carol", "role": "member"},
                               format="json"),
                    child.post(f"/api/v1/scopes/{team.pk}/members/", {"username": "bob", "role": "admin"},
                               format="json"),
                    child.patch(f"/api/v1/scopes/{team.pk}/members/bob/", {"role": "admin"}, format="json"),
                    child.delete(f"/api/v1/scopes/{team.pk}/members/bob/"),
                    child.post(f"/api/v1/scopes/{home.pk}/leave/"),
                    child.delete(f"/api/v1/scopes/{home.pk}/members/kai/")]:
        assert refused.status_code == 403, refused.content
        assert refused.json()["code"] == "minor_not_allowed"
    assert list(Membership.objects.order_by("id").values_list("scope_id", "user_id", "role")) == before
    assert not Invitation.objects.exists()
    # Leaving a team is not leaving the family; unmarked, the child does what the role lets him.
    mark(alice, home, "kai", minor=False)
    assert child.patch(f"/api/v1/scopes/{team.pk}/members/bob/", {"role": "viewer"}, format="json").status_code == 200
    assert child.post(f"/api/v1/scopes/{home.pk}/leave/").status_code == 204


def test_a_minor_is_refused_the_invite_link_the_invite_the_role_change_and_leaving_on_the_pages(alice, family, club):
    kai, home, team, bob = family["kai"], family["scope"], club["scope"], club["bob"]
    mark(alice, home, "kai")
    child = page_session(kai)
    personal = kai.personal_scope
    for url, body in [(f"/scopes/{personal.pk}/invites/", {"role": "admin"}),
                      (f"/scopes/{team.pk}/invites/", {"role": "member"}),
                      (f"/scopes/{team.pk}/members/add/", {"username": "carol", "role": "member"}),
                      (f"/scopes/{team.pk}/members/{bob.pk}/", {"role": "admin"}),
                      (f"/scopes/{team.pk}/members/{bob.pk}/remove/", {}),
                      (f"/scopes/{home.pk}/leave/", {})]:
        assert child.post(url, body).status_code == 403, url
    assert child.get(f"/scopes/{team.pk}/members/{bob.pk}/remove/").status_code == 403
    assert not Invite.objects.exists() and not Invitation.objects.exists()
    assert Membership.objects.filter(scope=home, user=kai).exists()
    assert Membership.objects.get(scope=team, user=bob).role == "member"
    # The pages offer none of it, and say why.
    members = child.get(f"/scopes/{team.pk}/members/").content.decode()
    assert "/invites/" not in members and "/members/add/" not in members and "/remove/" not in members
    assert "As a minor you cannot invite people" in members
    family_page = child.get(f"/scopes/{home.pk}/").content.decode()
    assert "/leave/" not in family_page and "As a minor you do not leave your family" in family_page
    assert "/invites/" not in child.get(f"/scopes/{personal.pk}/").content.decode()
    # An adult's pages still offer them.
    assert "/members/add/" in page_session(alice).get(f"/scopes/{home.pk}/members/").content.decode()


def test_a_minor_is_told_their_guardians_read_their_personal_memory_in_both_languages(alice, family):
    kai, home = family["kai"], family["scope"]
    child = page_session(kai)
    notice = "your guardians (the owners of your family) can read your personal memory"
    assert notice not in child.get(f"/scopes/{kai.personal_scope.pk}/").content.decode()
    mark(alice, home, "kai")
    assert notice in child.get(f"/scopes/{kai.personal_scope.pk}/").content.decode()
    assert notice in child.get("/accounts/settings/").content.decode()
    assert notice not in child.get(f"/scopes/{home.pk}/").content.decode()
    chinese = page_session(kai).get("/accounts/settings/", HTTP_ACCEPT_LANGUAGE="zh-Hant").content.decode()
    assert "你的監護人（你家庭的擁有者）可以讀取你的個人記憶" in chinese
