"""Reads of scopes, always through the principal (STYLE 2–3): "does not exist"
and "you may not see it" are the same 404."""

from __future__ import annotations

from django.db.models import BooleanField, ExpressionWrapper, OuterRef, Q, QuerySet, Subquery
from django.db.models.expressions import RawSQL
from django.http import Http404
from rest_framework.exceptions import PermissionDenied

from core.compiled import Compiled

from .models import LADDER_UP_SQL, MAX_LADDER_DEPTH, AgentToken, Membership, Scope, ScopeKind, User
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


def _read_scope_ids_query(*, agent: bool, all_scopes: bool, can_write: bool, user_id: int, scope_id: int,
                          token_id: int | None = None):
    user = User(pk=user_id)
    token = AgentToken(pk=token_id, all_scopes=all_scopes, can_write=can_write) if agent else None
    ladder = RawSQL(LADDER_UP_SQL, [scope_id, MAX_LADDER_DEPTH])
    return (Scope.objects.visible_to(Principal(user=user, token=token), "view")
            .filter(Q(pk__in=ladder) | Q(owner_id=user_id, kind=ScopeKind.PERSONAL) | Q(kind=ScopeKind.GLOBAL))
            .values("id"))


_READ_SCOPE_IDS = Compiled(_read_scope_ids_query, "user_id", "scope_id", "token_id")


def read_scope_ids(*, principal: Principal, scope_id: int) -> list[int]:
    """Scopes a read in scope `scope_id` sees (DESIGN §3): the scope, its
    ancestors, the caller's personal scope and `global` — each only if the
    caller may view it. Never siblings or children. 404 when the caller may not
    view the scope itself.

    One query, evaluated here: a handful of ids as a plain list plans far better
    than a nested permission subquery inside the card query. Compiled once per
    kind of principal (every read asks this first)."""
    token = principal.token
    values = {"user_id": principal.user.pk, "scope_id": scope_id}
    if token is not None and not token.all_scopes:
        values["token_id"] = token.pk
    rows = _READ_SCOPE_IDS.rows(values, agent=token is not None, all_scopes=bool(token and token.all_scopes),
                                can_write=bool(token and token.can_write))
    ids = [row["id"] for row in rows]
    if scope_id not in ids:
        raise Http404
    return ids
