"""POST /scopes/{id}/members/: a new member is added (201), an existing one changed (200)."""

import pytest

from scopes.models import Membership
from scopes.relations import relation_to
from scopes.services import scope_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_adding_adds_then_changes_an_existing_member(alice, as_user):
    family = scope_create(name="The Lins", kind="family", creator=alice)
    UserFactory(username="bob")
    client = as_user(alice)
    url = f"/api/v1/scopes/{family.pk}/members/"
    added = client.post(url, {"username": "bob", "role": "member", "relation": "brother"}, format="json")
    assert added.status_code == 201
    changed = client.post(url, {"username": "bob", "role": "viewer"}, format="json")
    assert changed.status_code == 200 and changed.json()["role"] == "viewer"
    membership = Membership.objects.get(scope=family, user__username="bob")
    assert membership.role == "viewer"
    assert relation_to(scope_id=membership.scope_id, member_id=membership.user_id, of_id=alice.pk) == "brother"
