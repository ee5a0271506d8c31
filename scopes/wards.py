"""Who guards whom (DESIGN §3): the minors a guardian looks after are the members
marked as minors of a family the guardian owns. Below the principal, which
reads a ward's personal scope with it (scopes/principals.py); the rest of the
household's roles are scopes/guardians.py."""

from __future__ import annotations

from django.db.models import QuerySet

from .models import Membership, Role, ScopeKind


def guarded_scope_ids(*, guardian_id: int, managed: QuerySet) -> QuerySet:
    """The families `guardian_id` owns, as a subquery; `managed`: the scopes the
    guardian may manage (scopes.principals.scope_ids_for), which restrict the read."""
    return (Membership.objects.in_scopes(managed)
            .filter(user_id=guardian_id, role=Role.OWNER, scope__kind=ScopeKind.FAMILY).values("scope_id"))


def ward_ids(*, guardian_id: int, managed: QuerySet) -> QuerySet:
    """Ids of the minors `guardian_id` looks after, as a subquery."""
    families = guarded_scope_ids(guardian_id=guardian_id, managed=managed)
    return Membership.objects.in_scopes(families).filter(minor=True).values("user_id")
