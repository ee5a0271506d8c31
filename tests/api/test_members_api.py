"""POST /scopes/{id}/members/: someone new is invited (201), an existing member changed (200)."""

import pytest
from rest_framework.test import APIClient

from scopes.models import Membership
from scopes.relations import relation_to
from scopes.services import scope_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _session(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def test_adding_invites_then_changes_an_existing_member(alice):
    family = scope_create(name="The Lins", kind="family", creator=alice)
    bob = UserFactory(username="bob")
    url = f"/api/v1/scopes/{family.pk}/members/"
    invited = _session(alice).post(url, {"username": "bob", "role": "member", "relation": "brother"}, format="json")
    assert invited.status_code == 201 and invited.json()["invitation"]["status"] == "invited"
    assert not Membership.objects.filter(scope=family, user=bob).exists()
    accepted = _session(bob).post(f"/api/v1/invitations/{invited.json()['invitation']['id']}/accept/")
    assert accepted.status_code == 200, accepted.content
    changed = _session(alice).post(url, {"username": "bob", "role": "viewer"}, format="json")
    assert changed.status_code == 200 and changed.json()["role"] == "viewer"
    membership = Membership.objects.get(scope=family, user__username="bob")
    assert membership.role == "viewer"
    assert relation_to(scope_id=membership.scope_id, member_id=membership.user_id, of_id=alice.pk) == "brother"
