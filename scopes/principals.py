"""Who is asking: a signed-in person, or an agent token acting for one. Every
read and write is restricted through `scope_ids_for`."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q, QuerySet

from .models import AgentToken, ScopeKind, ScopeUserObjectPermission, User

ACTION_PERMISSIONS = {
    "view": "view_scope",
    "write": "write_scope",
    "review": "review_scope",
    "manage": "manage_scope",
}
# What an agent token can ever be used for; review and membership stay with people.
TOKEN_ACTIONS = {False: {"view"}, True: {"view", "write"}}


@dataclass(frozen=True)
class Principal:
    user: User
    token: AgentToken | None = None

    @property
    def is_agent(self) -> bool:
        return self.token is not None


def principal_of(request) -> Principal:
    token = request.auth if isinstance(getattr(request, "auth", None), AgentToken) else None
    return Principal(user=request.user, token=token)


def principal_of_page(request) -> Principal:
    """A signed-in person; pages never act for an agent token."""
    return Principal(user=request.user)


def scope_ids_for(principal: Principal, action: str) -> QuerySet:
    """Ids of the scopes `principal` may `action`, as a subquery (never a list):
    the user's guardian grants — narrowed by the token's scopes and access when
    an agent asks — plus `global` for viewing. Losing a grant narrows every
    token at once, because nothing is copied into the token."""
    from .models import Scope

    if action not in ACTION_PERMISSIONS:
        raise ValueError(f"unknown action {action!r}")
    if principal.token is not None and action not in TOKEN_ACTIONS[principal.token.can_write]:
        return Scope.objects.none().values("id")
    granted = ScopeUserObjectPermission.objects.filter(
        user_id=principal.user.pk, permission__codename=ACTION_PERMISSIONS[action],
        permission__content_type__app_label="scopes")
    token = principal.token
    if token is not None and not token.all_scopes:
        granted = granted.filter(content_object_id__in=AgentToken.scopes.through.objects.filter(
            agenttoken_id=token.pk).values("scope_id"))
    condition = Q(id__in=granted.values("content_object_id"))
    if action == "view":
        # Admitted common sense is read-only for every principal, agents included.
        condition |= Q(kind=ScopeKind.GLOBAL)
    return Scope.objects.filter(condition).values("id")
