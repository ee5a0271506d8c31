"""The household every role × action table is read against (the API's in
tests/api/test_permission_matrix.py, the pages' in tests/web/test_page_permissions.py):
one family with a person in each role, a minor, a stranger, and the owner's three
kinds of agent token."""

from __future__ import annotations

from scopes.guardians import member_minor_set
from scopes.models import Membership
from scopes.principals import Principal
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

# The person in each role; "minor" is a member a family owner marked as a minor.
PEOPLE = {"owner": "alice", "admin": "ada", "member": "bob", "reviewer": "rita", "viewer": "victor",
          "minor": "kai", "non-member": "mallory"}
ROLE_OF = {"admin": "admin", "member": "member", "reviewer": "reviewer", "viewer": "viewer", "minor": "member"}
ACTIONS = ("read", "write", "review", "manage members", "manage tokens", "create scope", "admin")
# The order one principal asks them in: the admin before creating a scope, whose
# owner — a reviewer of a shared scope — may then use the admin.
RUN_ORDER = ("admin", "read", "review", "manage members", "write", "manage tokens", "create scope")


def household_of_roles(alice) -> dict:
    """{"scope": the family, role name: the user in it}; alice is the owner."""
    home = family_scope(owner=alice, name="Home")
    people = {"scope": home, "owner": alice}
    for role, username in PEOPLE.items():
        if role == "owner":
            continue
        user = UserFactory(username=username)
        people[role] = user
        if role in ROLE_OF:
            membership_set(scope=home, user=user, role=ROLE_OF[role])
    member_minor_set(principal=Principal(alice), scope=home, minor=True,
                     membership=Membership.objects.get(scope=home, user=people["minor"]))
    return people
