"""Who may change which membership, shared by the API and the dashboard: the
services keep permissions in step and refuse to drop the last owner; these
checks say which principal may ask for a change at all."""

from __future__ import annotations

from rest_framework.exceptions import PermissionDenied

from core.errors import InvalidInput

from .models import Membership, Role, Scope, ScopeKind, User

# What each role lets a person do, in words (the pages show them beside the role).
ROLE_EFFECTS = {
    Role.OWNER: "everything, including members and owners",
    Role.ADMIN: "everything, including members",
    Role.MEMBER: "read and write cards",
    Role.REVIEWER: "read and review",
    Role.VIEWER: "read only",
}


def owner_change_check(principal, scope: Scope, *roles: str | None) -> None:
    """Only an owner makes or unmakes owners."""
    if Role.OWNER in roles and not Membership.objects.filter(scope=scope, user_id=principal.user.pk,
                                                           role=Role.OWNER).exists():
        raise PermissionDenied("Only an owner can make or unmake owners.")


def shared_scope_check(scope: Scope) -> None:
    if scope.kind in (ScopeKind.PERSONAL, ScopeKind.GLOBAL):
        raise InvalidInput(f"A {scope.kind} scope has no other members.", fields={"scope": ["not shared"]})


def member_target(username: str) -> User:
    user = User.objects.filter(username=username).first()
    if user is None:
        raise InvalidInput(f"No user named {username!r}.", fields={"username": ["no such user"]})
    return user
