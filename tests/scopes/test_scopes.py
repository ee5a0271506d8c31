"""Users, personal scopes, the ladder and memberships."""

import pytest
from django.db import IntegrityError, transaction

from cards.models import Entity
from scopes.errors import InvalidLadder, LastOwner
from scopes.models import Scope, ScopeUserObjectPermission
from scopes.relations import relation_to
from scopes.services import global_scope_get, membership_remove, membership_set, scope_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def perms(user, scope):
    return set(ScopeUserObjectPermission.objects.filter(user=user, content_object=scope)
               .values_list("permission__codename", flat=True))


def test_every_user_gets_one_personal_scope_and_own_entity(alice):
    scope = alice.personal_scope
    assert scope.kind == "personal" and scope.owner == alice
    assert alice.entity.scope == scope and alice.entity.kind == "person"
    assert perms(alice, scope) == {"view_scope", "write_scope", "review_scope", "manage_scope"}
    with pytest.raises(IntegrityError), transaction.atomic():
        Scope.objects.create(kind="personal", owner=alice, name="second")


def test_superuser_created_by_manager_also_gets_personal_scope(db):
    from scopes.models import User
    root = User.objects.create_superuser("root", "root@example.org", "pw-123456789")
    assert root.personal_scope.kind == "personal" and Entity.objects.filter(user=root).exists()


def test_only_one_global_scope(db):
    assert global_scope_get() == global_scope_get()
    with pytest.raises(IntegrityError), transaction.atomic():
        Scope.objects.create(kind="global", name="another")


def test_ladder_project_under_team_under_enterprise(alice):
    enterprise = scope_create(name="Acme", kind="enterprise", creator=alice)
    team = scope_create(name="Platform", kind="team", creator=alice, parent=enterprise)
    project = scope_create(name="Search", kind="project", creator=alice, parent=team)
    assert project.ancestor_ids() == [team.pk, enterprise.pk]


@pytest.mark.parametrize("child_kind, parent_kind", [("team", "project"), ("family", "team"), ("team", "family")])
def test_ladder_refuses_wrong_order(alice, child_kind, parent_kind):
    parent = scope_create(name="p", kind=parent_kind, creator=alice)
    with pytest.raises(InvalidLadder):
        scope_create(name="c", kind=child_kind, creator=alice, parent=parent)


def test_role_change_keeps_guardian_grants_in_step(alice):
    bob = UserFactory(username="bob")
    family = scope_create(name="Home", kind="family", creator=alice)
    membership_set(scope=family, user=bob, role="viewer", relation="husband", relation_of=alice)
    assert perms(bob, family) == {"view_scope"}
    membership_set(scope=family, user=bob, role="member")
    assert perms(bob, family) == {"view_scope", "write_scope"}
    assert relation_to(scope_id=family.pk, member_id=bob.pk, of_id=alice.pk) == "husband"
    membership_remove(scope=family, user=bob)
    assert perms(bob, family) == set()
    # Leaving takes the member's relations with them.
    assert relation_to(scope_id=family.pk, member_id=bob.pk, of_id=alice.pk) == ""


def test_last_owner_cannot_be_removed_or_demoted(alice):
    family = scope_create(name="Home", kind="family", creator=alice)
    with pytest.raises(LastOwner):
        membership_remove(scope=family, user=alice)
    with pytest.raises(LastOwner):
        membership_set(scope=family, user=alice, role="member")
    bob = UserFactory(username="bob")
    membership_set(scope=family, user=bob, role="owner")
    membership_remove(scope=family, user=alice)
    assert list(family.memberships.values_list("user__username", flat=True)) == ["bob"]
