"""Roles that fit a household (DESIGN §3): a family's owners may mark a member
as a minor. Minors make no agent tokens and no scopes; their guardians — the
owners of a family in which they are a minor — see and revoke their tokens.
The one home of "is a minor" (who guards whom: scopes/wards.py, which the
principal reads with); the token and scope services, the API and the pages call it."""

from __future__ import annotations

from django.db import transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from core.errors import InvalidInput, NotAllowed

from . import wards
from .errors import MinorRefused
from .members import is_owner
from .models import Membership, Role, Scope, ScopeKind, User
from .principals import Principal


def is_minor(user: User) -> bool:
    """Marked as a minor in any family the person belongs to (read through
    their own memberships, like every read of a scoped row)."""
    return (Membership.objects.visible_to(Principal(user), "view")
            .filter(user_id=user.pk, minor=True, scope__kind=ScopeKind.FAMILY).exists())


def minor_check(user: User, what: str) -> None:
    """Refuses a minor what only adults (and their guardians) do: `what` names it.
    The one home of that rule: the token, scope, invite and membership services call it."""
    if is_minor(user):
        # Whole sentences, one per thing refused: the words around `what` move in other languages.
        refusals = {"agent tokens": _("Minors cannot create agent tokens; ask a guardian (an owner of your family)."),
                    "scopes": _("Minors cannot create scopes; ask a guardian (an owner of your family)."),
                    "invite links": _("Minors cannot create invite links; ask a guardian (an owner of your family)."),
                    "members": _("Minors cannot invite people or change members' roles; ask a guardian (an owner "
                                 "of your family)."),
                    "leaving": _("Minors cannot leave their family; ask a guardian (an owner of your family).")}
        raise MinorRefused(refusals[what])


def ward_ids(guardian: User) -> QuerySet:
    """Ids of the minors `guardian` looks after, as a subquery (the rule: scopes/wards.py)."""
    return wards.ward_ids(guardian_id=guardian.pk, managed=Principal(guardian).scope_ids("manage"))


def guardians_note(*, principal: Principal, scope: Scope) -> str:
    """What a personal scope's page tells a guardian (`scope` already checked visible): "guardian" to a
    guardian reading a child's (seen only as one: scopes.principals.scope_ids_for), else "". The minor is
    told on their own pages (templates/scopes/_guardians_read.html: DESIGN §3, "the minor is told so")."""
    if scope.kind != ScopeKind.PERSONAL:
        return ""
    return "guardian" if scope.owner_id != principal.user.pk else ""


def minor_role_check(membership: Membership, role: str) -> None:
    """An owner is a guardian: a minor cannot be one (the database holds it too)."""
    if membership.minor and role == Role.OWNER:
        raise InvalidInput(_("A minor cannot be an owner; unmark them as a minor first."),
                           fields={"role": [_("a minor cannot be an owner")]})


@transaction.atomic
def member_minor_set(*, principal: Principal, scope: Scope, membership: Membership, minor: bool) -> Membership:
    """Mark `membership` (of the family `scope`) as a minor, or unmark it. Only a
    person who owns the family decides, never an agent token."""
    if principal.is_agent or not is_owner(scope, principal.user.pk):
        raise NotAllowed(_("Only an owner of the family marks a member as a minor."))
    if scope.kind != ScopeKind.FAMILY:
        raise InvalidInput(_("Only members of a family can be marked as minors."),
                           fields={"minor": [_("only in a family scope")]})
    membership = Membership.objects.in_scopes([scope.pk]).select_for_update().get(pk=membership.pk)
    if minor and membership.role == Role.OWNER:
        raise InvalidInput(_("An owner is a guardian, never a minor; change their role first."),
                           fields={"minor": [_("an owner cannot be a minor")]})
    if membership.minor != minor:
        membership.minor = minor
        membership.save(update_fields=["minor"])
    return membership
