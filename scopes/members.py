"""Who may change which membership, shared by the API and the dashboard: the
services keep permissions in step and refuse to drop the last owner; these
checks say which principal may ask for a change at all."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.errors import InvalidInput, NotAllowed

from .models import Membership, Role, Scope, ScopeKind, User

# What each role lets a person do, in words (the pages show them beside the role).
ROLE_EFFECTS = {
    Role.OWNER: gettext_lazy("everything, including members and owners"),
    Role.ADMIN: gettext_lazy("everything, including members"),
    Role.MEMBER: gettext_lazy("read and write cards"),
    Role.REVIEWER: gettext_lazy("read and review"),
    Role.VIEWER: gettext_lazy("read only"),
}


def is_owner(scope: Scope, user_id: int) -> bool:
    return Membership.objects.in_scopes([scope.pk]).filter(user_id=user_id, role=Role.OWNER).exists()


def owner_change_check(principal, scope: Scope, *roles: str | None) -> None:
    """Only an owner makes or unmakes owners (inviting someone as owner included)."""
    if Role.OWNER in roles and not is_owner(scope, principal.user.pk):
        raise NotAllowed(_("Only an owner can make or unmake owners."))


def shared_scope_check(scope: Scope) -> None:
    if scope.kind in (ScopeKind.PERSONAL, ScopeKind.GLOBAL):
        raise InvalidInput(_("A %(kind)s scope has no other members.") % {"kind": scope.kind_name},
                           fields={"scope": [_("not shared")]})


def member_named(scope: Scope, username: str, *, field: str = "username") -> User:
    """The member of `scope` called `username`. Anyone else, whether or not an
    account has that name, gets the same refusal: names are never probed here."""
    membership = Membership.objects.in_scopes([scope.pk]).filter(user__username=username).select_related("user").first()
    if membership is None:
        raise InvalidInput(_("%(name)s is not a member of this scope.") % {"name": repr(username)},
                           fields={field: [_("not a member")]})
    return membership.user
