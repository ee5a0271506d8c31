"""scopes/sharing.py: a member's choice of which labels of their own personal cards a family or
team they belong to reads (DESIGN §3 "Sharing by the person's choice"). The writes and the
person's own view of them; the registry's check is the card store's (tests/api/test_sharing_api.py)."""

import pytest

from core.errors import NotAllowed
from scopes.errors import MinorRefused, NotAMember, NotFamilyOrTeam
from scopes.guardians import member_minor_set
from scopes.invites import invitation_accept, invitation_create
from scopes.models import Role, Share
from scopes.principals import Principal
from scopes.services import global_scope_get, member_remove, membership_leave, membership_set, scope_create
from scopes.sharing import sharing_of, sharing_set
from scopes.tokens import token_create
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def bob(db):
    return UserFactory(username="bob")


@pytest.fixture
def family(alice, bob):
    family = family_scope(owner=alice)
    membership_set(scope=family, user=bob, role=Role.MEMBER)
    return family


def _me(user) -> Principal:
    return Principal(user)


def test_a_member_shares_then_replaces_then_clears(family, bob):
    assert sharing_set(principal=_me(bob), scope=family, labels=["employer", "address", "address"]) == [
        "address", "employer"]
    assert sharing_of(principal=_me(bob)) == [{"scope": family.pk, "labels": ["address", "employer"]}]
    assert sharing_set(principal=_me(bob), scope=family, labels=["birthday", "employer"]) == ["birthday", "employer"]
    assert sorted(Share.objects.in_scopes([family.pk]).values_list("label_key", flat=True)) == ["birthday", "employer"]
    assert sharing_set(principal=_me(bob), scope=family, labels=[]) == []
    assert sharing_of(principal=_me(bob)) == [{"scope": family.pk, "labels": []}]
    assert not Share.objects.in_scopes([family.pk]).exists()


def test_each_member_has_their_own_set(family, alice, bob):
    sharing_set(principal=_me(alice), scope=family, labels=["address"])
    sharing_set(principal=_me(bob), scope=family, labels=["employer"])
    sharing_set(principal=_me(bob), scope=family, labels=[])
    assert sharing_of(principal=_me(alice)) == [{"scope": family.pk, "labels": ["address"]}]


def test_the_list_names_every_family_and_team_of_the_person_and_nothing_else(alice, bob, family):
    team = scope_create(name="Kettle team", kind="team", creator=bob)
    scope_create(name="Garden", kind="project", creator=bob)
    family_scope(owner=alice, name="Not bob's")
    sharing_set(principal=_me(bob), scope=team, labels=["skill"])
    assert sharing_of(principal=_me(bob)) == [{"scope": family.pk, "labels": []},
                                              {"scope": team.pk, "labels": ["skill"]}]


@pytest.mark.parametrize("kind", ["personal", "project", "department", "global"])
def test_a_scope_that_is_no_family_or_team_is_refused_by_name(alice, kind):
    scope = (alice.personal_scope if kind == "personal" else global_scope_get() if kind == "global"
             else scope_create(name="Elsewhere", kind=kind, creator=alice))
    with pytest.raises(NotFamilyOrTeam) as refused:
        sharing_set(principal=_me(alice), scope=scope, labels=["address"])
    assert (refused.value.code, refused.value.status) == ("not_family_or_team", 400)
    assert not Share.objects.in_scopes([scope.pk]).exists()


def test_a_family_one_does_not_belong_to_is_absent(family):
    carol = UserFactory(username="carol")
    with pytest.raises(NotAMember) as refused:
        sharing_set(principal=_me(carol), scope=family, labels=["address"])
    assert refused.value.status == 404


def test_an_agent_token_never_shares(family, bob):
    token, _raw = token_create(user=bob, name="agent", can_write=True, all_scopes=True, days=30)
    with pytest.raises(NotAllowed):
        sharing_set(principal=Principal(bob, token), scope=family, labels=["address"])
    with pytest.raises(NotAllowed):
        sharing_of(principal=Principal(bob, token))
    assert not Share.objects.in_scopes([family.pk]).exists()


def test_a_minor_shares_like_anyone(family, alice, bob):
    membership = family.memberships.in_scopes([family.pk]).get(user=bob)
    member_minor_set(principal=_me(alice), scope=family, membership=membership, minor=True)
    assert sharing_set(principal=_me(bob), scope=family, labels=["allergy"]) == ["allergy"]
    with pytest.raises(MinorRefused):  # a minor still does not leave their family
        membership_leave(scope=family, user=bob)


def test_leaving_ends_the_leavers_shares_and_rejoining_starts_with_nothing(family, alice, bob):
    sharing_set(principal=_me(alice), scope=family, labels=["address"])
    sharing_set(principal=_me(bob), scope=family, labels=["employer"])
    membership_leave(scope=family, user=bob)
    assert list(Share.objects.in_scopes([family.pk]).values_list("owner__username", "label_key")) == [
        ("alice", "address")]
    assert sharing_of(principal=_me(bob)) == []
    invitation = invitation_create(scope=family, username="bob", role=Role.MEMBER, invited_by=alice)
    invitation_accept(invitation=invitation, user=bob)
    assert sharing_of(principal=_me(bob)) == [{"scope": family.pk, "labels": []}]


def test_being_removed_ends_the_shares_too(family, alice, bob):
    sharing_set(principal=_me(bob), scope=family, labels=["employer"])
    member_remove(principal=_me(alice), scope=family,
                  membership=family.memberships.in_scopes([family.pk]).get(user=bob))
    assert not Share.objects.in_scopes([family.pk]).filter(owner=bob).exists()


def test_erasing_the_account_takes_the_shares(family, bob):
    from cards.services.account import account_erase

    sharing_set(principal=_me(bob), scope=family, labels=["employer"])
    account_erase(user=bob)
    assert not Share.objects.in_scopes([family.pk]).exists()
