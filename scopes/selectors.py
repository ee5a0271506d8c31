"""Reads of scopes, always through the principal (STYLE 2–3): "does not exist"
and "you may not see it" are the same 404."""

from __future__ import annotations

from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.http import Http404
from rest_framework.exceptions import PermissionDenied

from .models import Membership, Scope, ScopeKind
from .principals import Principal


def scope_get(*, principal: Principal, scope_id: int, action: str = "view") -> Scope:
    """The scope if `principal` may view it (else 404) and may `action` it (else 403)."""
    scope = Scope.objects.visible_to(principal, "view").filter(pk=scope_id).first()
    if scope is None:
        raise Http404
    if action != "view" and not Scope.objects.visible_to(principal, action).filter(pk=scope.pk).exists():
        raise PermissionDenied(f"You may not {action} in this scope.")
    return scope


def scope_list(*, principal: Principal) -> QuerySet[Scope]:
    """Scopes `principal` may view, with the caller's role and relation in each."""
    mine = Membership.objects.filter(scope=OuterRef("pk"), user_id=principal.user.pk)
    return (Scope.objects.visible_to(principal, "view")
            .annotate(role=Subquery(mine.values("role")[:1]), relation=Subquery(mine.values("relation")[:1]))
            .order_by("id"))


def read_scope_ids(*, principal: Principal, scope: Scope) -> list[int]:
    """Scopes a read in `scope` sees (DESIGN §3): the scope, its ancestors, the
    caller's personal scope and `global` — each only if the caller may view it.
    Never siblings or children."""
    named = [scope.pk, *scope.ancestor_ids()]
    # Evaluated here: a handful of ids as a plain list plans far better than a
    # nested permission subquery inside the card query (and is re-planned less).
    return list(Scope.objects.visible_to(principal, "view")
                .filter(Q(pk__in=named) | Q(owner_id=principal.user.pk, kind=ScopeKind.PERSONAL)
                        | Q(kind=ScopeKind.GLOBAL))
                .values_list("id", flat=True))
