"""Membership by consent (issue 16): adding someone invites them; nothing of the
scope reaches them or their tokens until they accept; a name no one has is
answered exactly like one someone has; leaving is for every member but the last
owner; a token limited to some scopes creates no scopes."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from cards.drafts import CardDraft
from cards.models import Entity, PossibleDuplicate
from cards.services import card_remember, entity_create
from scopes.models import AgentToken, Invitation, Membership, Scope
from scopes.services import membership_set, scope_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def session(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def scope_ids(client) -> set[int]:
    return {row["id"] for row in client.get("/api/v1/scopes/").json()["results"]}


def card_values(client, scope_id: int):
    return client.get("/api/v1/cards/", {"scope": scope_id})


@pytest.fixture
def family(alice):
    family = scope_create(name="The Lins", kind="family", creator=alice)
    card_remember(scope=family, actor=alice, draft=CardDraft(kind="state", label="address", subject="me",
                                                             value="Kyoto"))
    return family


def invite(alice, family, username: str, **fields):
    return session(alice).post(f"/api/v1/scopes/{family.pk}/members/",
                               {"username": username, "role": "member", **fields}, format="json")


def test_an_invitee_sees_nothing_of_the_scope_until_they_accept(alice, family, bearer):
    bob = UserFactory(username="bob")
    agent = bearer(bob, all_scopes=True, write=True)  # their agent: every scope they can see, now and later
    invited = invite(alice, family, "bob", relation="brother")
    assert invited.status_code == 201, invited.content
    invitation = invited.json()["invitation"]
    assert invitation["status"] == "invited" and invitation["scope"] == family.pk

    for client in (session(bob), agent):
        assert family.pk not in scope_ids(client)
        assert card_values(client, family.pk).status_code == 404
        assert client.get(f"/api/v1/scopes/{family.pk}/").status_code == 404
    written = agent.post("/api/v1/cards/", {"scope": family.pk, "kind": "state", "subject": "me",
                                            "label": "skill", "value": "Go"}, format="json")
    assert written.status_code == 404  # nothing planted there either
    assert not Membership.objects.filter(scope=family, user=bob).exists()

    waiting = session(bob).get("/api/v1/invitations/").json()["results"]
    assert [(row["id"], row["scope_name"], row["invited_by"]) for row in waiting] == [
        (invitation["id"], "The Lins", "Alice")]
    accepted = session(bob).post(f"/api/v1/invitations/{invitation['id']}/accept/")
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"

    for client in (session(bob), agent):
        assert family.pk in scope_ids(client)
        assert [c["value"] for c in card_values(client, family.pk).json()["results"]] == ["Kyoto"]
    mine = session(bob).get(f"/api/v1/scopes/{family.pk}/").json()
    assert mine["role"] == "member" and mine["relation"] == "brother of Alice"
    assert session(bob).get("/api/v1/invitations/").json()["results"] == []


def test_a_declined_invitation_leaves_the_invitee_outside(alice, family, bearer):
    bob = UserFactory(username="bob")
    agent = bearer(bob, all_scopes=True)
    invitation = invite(alice, family, "bob").json()["invitation"]
    declined = session(bob).post(f"/api/v1/invitations/{invitation['id']}/decline/")
    assert declined.status_code == 200 and declined.json()["status"] == "declined"
    for client in (session(bob), agent):
        assert family.pk not in scope_ids(client)
    # Answered once: accepting afterwards finds no open invitation.
    assert session(bob).post(f"/api/v1/invitations/{invitation['id']}/accept/").status_code == 404
    assert not Membership.objects.filter(scope=family, user=bob).exists()


def test_a_name_no_one_has_is_answered_exactly_like_a_known_one(alice, family):
    UserFactory(username="bob")
    known, unknown = invite(alice, family, "bob"), invite(alice, family, "admin")
    assert known.status_code == unknown.status_code == 201
    shape = {key: value for key, value in known.json()["invitation"].items() if key not in ("id", "username")}
    assert {key: value for key, value in unknown.json()["invitation"].items()
            if key not in ("id", "username")} == shape
    assert unknown.json()["invitation"]["username"] == "admin"
    assert "No user" not in unknown.content.decode()
    # Asking again is the same answer for both: the one open invitation, updated.
    again = invite(alice, family, "admin", role="viewer")
    assert again.status_code == 201 and again.json()["invitation"]["id"] == unknown.json()["invitation"]["id"]


def test_an_invitation_to_a_name_no_one_had_can_never_be_accepted(alice, family):
    invitation = invite(alice, family, "newcomer").json()["invitation"]
    newcomer = UserFactory(username="newcomer")  # the name is taken later: the row stays no one's
    assert session(newcomer).get("/api/v1/invitations/").json()["results"] == []
    assert session(newcomer).post(f"/api/v1/invitations/{invitation['id']}/accept/").status_code == 404
    assert family.pk not in scope_ids(session(newcomer))


def test_the_relations_endpoint_does_not_tell_which_names_exist(alice, family):
    """The relations endpoint answers "not a member" alike for a stranger's name and a name no one has."""
    UserFactory(username="bob")
    answers = [session(alice).put(f"/api/v1/scopes/{family.pk}/relations/",
                                  {"member": name, "of": "alice", "relation": "brother"}, format="json")
               for name in ("bob", "nobody")]
    assert [a.status_code for a in answers] == [400, 400]
    assert answers[0].json()["fields"] == answers[1].json()["fields"] == {"member": ["not a member"]}


def test_someone_elses_invitation_is_not_theirs_to_answer(alice, family):
    UserFactory(username="bob")
    mallory = UserFactory(username="mallory")
    invitation = invite(alice, family, "bob").json()["invitation"]
    for answer in ("accept", "decline"):
        refused = session(mallory).post(f"/api/v1/invitations/{invitation['id']}/{answer}/")
        assert refused.status_code == 404 and refused.json()["code"] == "not_found"
    assert session(mallory).get("/api/v1/invitations/").json()["results"] == []
    assert Invitation.objects.get(pk=invitation["id"]).status == "invited"


def test_a_bad_relation_or_an_admin_inviting_an_owner_stores_nothing(alice, family):
    UserFactory(username="bob")
    admin = UserFactory(username="ada")
    membership_set(scope=family, user=admin, role="admin")
    bad = invite(alice, family, "bob", relation="x" * 101)  # any words are kept as said; too many are not
    assert bad.status_code == 400 and list(bad.json()["fields"]) == ["relation"]
    owner = session(admin).post(f"/api/v1/scopes/{family.pk}/members/", {"username": "bob", "role": "owner"},
                                format="json")
    assert owner.status_code == 403
    assert not Invitation.objects.exists()


def test_look_alikes_are_proposed_when_the_invitee_accepts_not_when_invited(alice, family):
    dana = UserFactory(username="dana", display_name="Dana")
    written_before = entity_create(scope=family, name="Dana")  # the family wrote about Dana before she joined
    invitation = invite(alice, family, "dana").json()["invitation"]
    assert not PossibleDuplicate.objects.filter(entity=written_before).exists()
    session(dana).post(f"/api/v1/invitations/{invitation['id']}/accept/")
    assert PossibleDuplicate.objects.filter(entity=written_before, similar_to=Entity.objects.get(user=dana)).exists()


def test_an_admin_who_loses_the_right_takes_back_their_open_invitations(alice, family):
    admin, bob = UserFactory(username="ada"), UserFactory(username="bob")
    membership_set(scope=family, user=admin, role="admin")
    invitation = session(admin).post(f"/api/v1/scopes/{family.pk}/members/", {"username": "bob", "role": "member"},
                                     format="json").json()["invitation"]
    membership_set(scope=family, user=admin, role="viewer")
    assert session(bob).post(f"/api/v1/invitations/{invitation['id']}/accept/").status_code == 404
    assert Invitation.objects.get(pk=invitation["id"]).status == "withdrawn"


def test_a_token_limited_to_some_scopes_cannot_create_a_scope(alice, family, bearer):
    limited = bearer(alice, scopes=[family], write=True)
    before = Scope.objects.count()
    for body in ({"name": "Side project", "kind": "project"}, {"name": "Another family", "kind": "family"}):
        refused = limited.post("/api/v1/scopes/", body, format="json")
        assert refused.status_code == 403 and refused.json()["code"] == "permission_denied"
    assert Scope.objects.count() == before
    assert list(AgentToken.objects.get(user=alice).scopes.all()) == [family]
    # A token over all the person's scopes may: it sees every scope they own anyway.
    everything = bearer(alice, all_scopes=True, write=True)
    created = everything.post("/api/v1/scopes/", {"name": "Side project", "kind": "project"}, format="json")
    assert created.status_code == 201 and created.json()["id"] in scope_ids(everything)


def test_leaving_ends_access_for_the_person_and_their_tokens(alice, family, bearer):
    bob = UserFactory(username="bob")
    membership_set(scope=family, user=bob, role="member", relation="brother", relation_of=alice)
    everywhere, only_here = bearer(bob, all_scopes=True), bearer(bob, scopes=[family])
    assert family.pk in scope_ids(everywhere) and family.pk in scope_ids(only_here)
    left = session(bob).post(f"/api/v1/scopes/{family.pk}/leave/")
    assert left.status_code == 204, left.content
    for client in (session(bob), everywhere, only_here):
        assert family.pk not in scope_ids(client)
        assert card_values(client, family.pk).status_code == 404
    assert not Membership.objects.filter(scope=family, user=bob).exists()
    # Joining again later does not revive the old agent's reach: the token forgot the scope.
    membership_set(scope=family, user=bob, role="member")
    assert family.pk not in scope_ids(only_here) and family.pk in scope_ids(everywhere)


def test_the_last_owner_cannot_leave_until_someone_else_owns_the_scope(alice, family):
    refused = session(alice).post(f"/api/v1/scopes/{family.pk}/leave/")
    assert refused.status_code == 409 and refused.json()["code"] == "last_owner"
    assert Membership.objects.get(scope=family, user=alice).role == "owner"
    sam = UserFactory(username="sam")
    membership_set(scope=family, user=sam, role="owner")
    assert session(alice).post(f"/api/v1/scopes/{family.pk}/leave/").status_code == 204
    assert list(Membership.objects.filter(scope=family).values_list("user__username", flat=True)) == ["sam"]


def test_a_personal_scope_and_a_scope_one_is_not_in_cannot_be_left(alice, family):
    mallory = UserFactory(username="mallory")
    personal = session(alice).post(f"/api/v1/scopes/{alice.personal_scope.pk}/leave/")
    assert personal.status_code == 400
    assert session(mallory).post(f"/api/v1/scopes/{family.pk}/leave/").status_code == 404


def test_an_admin_lists_and_withdraws_open_invitations_and_then_it_cannot_be_accepted(alice, family, bearer):
    bob = UserFactory(username="bob")
    mallory = UserFactory(username="mallory")
    membership_set(scope=family, user=mallory, role="member")
    asked = invite(alice, family, "bob").json()["invitation"]
    invite(alice, family, "nobody-has-this-name")
    admin = session(alice)
    listed = admin.get(f"/api/v1/scopes/{family.pk}/invitations/").json()
    assert [(row["username"], row["status"]) for row in listed["results"]] == [
        ("nobody-has-this-name", "invited"), ("bob", "invited")] and listed["next"] is None
    # A member who does not manage the scope, and any agent token, may neither list nor withdraw.
    path = f"/api/v1/scopes/{family.pk}/invitations/{asked['id']}/withdraw/"
    assert session(mallory).get(f"/api/v1/scopes/{family.pk}/invitations/").status_code == 403
    assert session(mallory).post(path).status_code == 403
    assert bearer(alice, write=True, all_scopes=True).post(path).status_code == 403
    withdrawn = admin.post(path)
    assert (withdrawn.status_code, withdrawn.json()["status"]) == (200, "withdrawn")
    assert admin.post(path).status_code == 404  # already withdrawn: nothing open to take back
    refused = session(bob).post(f"/api/v1/invitations/{asked['id']}/accept/")
    assert refused.status_code == 404 and family.pk not in scope_ids(session(bob))
    assert not Membership.objects.filter(scope=family, user=bob).exists()
    other = scope_create(name="Elsewhere", kind="family", creator=mallory)
    assert session(mallory).post(f"/api/v1/scopes/{other.pk}/invitations/{asked['id']}/withdraw/").status_code == 404
