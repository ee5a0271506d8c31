"""Reads of scopes, always through the principal (STYLE 2–3): "does not exist"
and "you may not see it" are the same 404."""

from __future__ import annotations

from django.db.models import BooleanField, ExpressionWrapper, OuterRef, Q, QuerySet, Subquery
from django.db.models.expressions import RawSQL
from django.http import Http404
from rest_framework.exceptions import PermissionDenied

from .models import LADDER_UP_SQL, MAX_LADDER_DEPTH, Membership, Scope, ScopeKind
from .principals import Principal, scope_ids_for


def scope_get(*, principal: Principal, scope_id: int, action: str = "view") -> Scope:
    """The scope if `principal` may view it (else 404) and may `action` it (else 403), in one query."""
    scopes = Scope.objects.visible_to(principal, "view").filter(pk=scope_id)
    if action != "view":
        scopes = scopes.annotate(allowed=ExpressionWrapper(Q(id__in=scope_ids_for(principal, action)),
                                                           output_field=BooleanField()))
    scope = scopes.first()
    if scope is None:
        raise Http404
    if action != "view" and not scope.allowed:
        raise PermissionDenied(f"You may not {action} in this scope.")
    return scope


def scope_list(*, principal: Principal) -> QuerySet[Scope]:
    """Scopes `principal` may view, with the caller's role and relation in each."""
    mine = Membership.objects.filter(scope=OuterRef("pk"), user_id=principal.user.pk)
    return (Scope.objects.visible_to(principal, "view")
            .annotate(role=Subquery(mine.values("role")[:1]), relation=Subquery(mine.values("relation")[:1]))
            .order_by("id"))


def read_scope_ids(*, principal: Principal, scope_id: int) -> list[int]:
    """Scopes a read in scope `scope_id` sees (DESIGN §3): the scope, its
    ancestors, the caller's personal scope and `global` — each only if the
    caller may view it. Never siblings or children. 404 when the caller may not
    view the scope itself.

    One query, evaluated here: a handful of ids as a plain list plans far better
    than a nested permission subquery inside the card query."""
    ladder = RawSQL(LADDER_UP_SQL, [scope_id, MAX_LADDER_DEPTH])
    ids = list(Scope.objects.visible_to(principal, "view")
               .filter(Q(pk__in=ladder) | Q(owner_id=principal.user.pk, kind=ScopeKind.PERSONAL)
                       | Q(kind=ScopeKind.GLOBAL))
               .values_list("id", flat=True))
    if scope_id not in ids:
        raise Http404
    return ids
