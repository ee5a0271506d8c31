"""The one restriction primitive for rows that live in a scope (STYLE 3).

A model stored in a scope gives its manager a `ScopedQuerySet` subclass that
names the path from the row to its scope (`scope_path = "scope"`: every scoped
row keeps its own, those hanging off a card or an entity too, so the filter is
on the row's own scope_id and never a join). Every read for a person goes through
`visible_to(principal, action)` — one `id__in` subquery on `scope_ids_for` — or,
when a read has already been narrowed by `read_scope_ids`, `in_scopes(ids)`.
The ladder knows nothing of what is stored in it: the cards and review apps
subclass this queryset, never the other way round."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, ClassVar

from django.db import models
from django.db.models import BooleanField, ExpressionWrapper, Q, Value

from core.errors import NotAllowed

if TYPE_CHECKING:
    from .principals import Principal

# The queryset methods that restrict a scoped read; a read that calls none of
# them is a stray (tests/test_read_visibility.py walks the code for one).
RESTRICTING_METHODS = ("visible_to", "in_scopes")


def scope_id_values(scope_ids):
    """`scope_ids` as a filter value: a queryset or an expression as it is, anything else as a list."""
    if isinstance(scope_ids, models.QuerySet) or hasattr(scope_ids, "resolve_expression"):
        return scope_ids
    return list(scope_ids)


class ScopedQuerySet(models.QuerySet):
    """Rows of a model that lives in a scope; `scope_path` leads from a row to its scope."""

    scope_path: ClassVar[str] = "scope"

    def scope_condition(self, scope_ids) -> Q:
        """The filter keeping rows whose scope is among `scope_ids` (a subquery or a list)."""
        return Q(**{f"{self.scope_path}_id__in": scope_ids})

    def visible_to(self, principal: Principal, action: str = "view") -> ScopedQuerySet:
        """Rows in the scopes `principal` may `action` (view, write, review, manage),
        narrowed by an agent token's scopes and access: one id__in subquery."""
        from .principals import scope_ids_for  # principals reads the scope models, which use this queryset

        return self.filter(self.scope_condition(scope_ids_for(principal, action)))

    def in_scopes(self, scope_ids: Iterable[int]) -> ScopedQuerySet:
        """Rows in `scope_ids`: for reads already narrowed by `read_scope_ids`, or
        by a scope a selector has just checked (a plain list plans best; a
        subquery or an expression, e.g. one array parameter of a compiled query, is kept as it is)."""
        return self.filter(self.scope_condition(scope_id_values(scope_ids)))

    def allowed_in(self, scope_ids: Iterable[int]) -> ScopedQuerySet:
        """Annotates `allowed`: whether each row's scope is among `scope_ids` (those the principal may act
        in), so "may see" and "may act" are answered by one query."""
        scope_ids = scope_id_values(scope_ids)
        if isinstance(scope_ids, list) and not scope_ids:  # `IN ()` is no SQL: Django would drop the row instead
            return self.annotate(allowed=Value(False, output_field=BooleanField()))
        return self.annotate(allowed=ExpressionWrapper(self.scope_condition(scope_ids), output_field=BooleanField()))


def row_get(rows: ScopedQuerySet, *, principal: Principal, pk: int, action: str = "view"):
    """The row `pk` if `principal` may view it (else 404: "does not exist" and
    "may not see it" are the same answer) and may `action` it (else 403). The
    principal's scopes are listed first (one read of the permission tables), and
    the row is read by them as constants: a cluster sends that read to the
    shards of those scopes alone, where a permission subquery would ask them all."""
    from .principals import scope_ids_listed  # principals reads the scope models, which use this module

    if action == "view":
        (viewed,) = scope_ids_listed(principal, "view")
        rows = rows.in_scopes(viewed).filter(pk=pk)
    else:
        viewed, acted = scope_ids_listed(principal, "view", action)
        rows = rows.in_scopes(viewed).filter(pk=pk).allowed_in(acted)
    return first_allowed(rows, action=action, principal=principal)


def first_allowed(rows, *, action: str, principal: Principal | None = None):
    """The one row of `rows` (already narrowed to what the principal may view and,
    for another action, annotated with `allowed`): 404 when there is none, 403
    when it may be seen but not acted on — `scope_archived` (403) when only the
    archive holds it back, told when `principal` is given. Scopes and scoped rows answer alike."""
    from django.http import Http404

    row = rows.first()
    if row is None:
        raise Http404
    if action != "view" and not row.allowed:
        from .archive import archived_refusal  # the archive reads the scope models, which use this module

        archived_refusal(rows, principal=principal, action=action)
        raise NotAllowed(f"You may not {action} in this scope.")
    return row


class ScopedAdmin:
    """ModelAdmin (and inline) mixin for models that live in a scope: superusers
    see every row; anyone else sees, through the model's `visible_to`, the rows
    of the scopes they may `scope_action`. Every scoped model's admin uses it
    (a test holds that)."""

    scope_action = "view"

    def get_queryset(self, request):
        from .principals import Principal

        rows = super().get_queryset(request)
        if request.user.is_superuser:
            return rows
        return rows.visible_to(Principal(request.user), self.scope_action)
