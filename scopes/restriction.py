"""The one restriction primitive for rows that live in a scope (STYLE 3).

A model stored in a scope gives its manager a `ScopedQuerySet` subclass that
names the path from the row to its scope (`scope_path = "scope"`: every scoped
row keeps its own, those hanging off a card or an entity too, so the filter is
on the row's own scope_id and never a join). Every read for a person goes through
`visible_to(principal, action)` — one `id__in` subquery on the principal's
scopes (scopes.principals.scope_ids_for) — or, when a read has already been
narrowed by `read_scope_ids`, `in_scopes(ids)`.
The ladder knows nothing of what is stored in it: the cards and review apps
subclass this queryset, never the other way round. The scopes themselves are
restricted by it too (`Scope.objects.visible_to`): no model keeps a copy of the
check (tests/test_read_visibility.py holds that).

The scope models use this queryset, and the principal's scopes are read from
those models: so the primitive asks the principal for its scopes (`Asker`)
rather than importing who decides them. Reading one row for a principal, with
its 404 and 403, is scopes/visibility.py."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Protocol

from django.db import models
from django.db.models import BooleanField, ExpressionWrapper, Q, Value


class Asker(Protocol):
    """Whoever reads (scopes.principals.Principal): the scopes they may `action`, as a subquery."""

    def scope_ids(self, action: str) -> models.QuerySet: ...


# The queryset methods that restrict a scoped read; a read that calls none of
# them is a stray (tests/test_read_visibility.py walks the code for one).
RESTRICTING_METHODS = ("visible_to", "in_scopes")


def scope_id_values(scope_ids):
    """`scope_ids` as a filter value: a queryset or an expression as it is, anything else as a list."""
    if isinstance(scope_ids, models.QuerySet) or hasattr(scope_ids, "resolve_expression"):
        return scope_ids
    return list(scope_ids)


class ScopedQuerySet(models.QuerySet):
    """Rows of a model that lives in a scope, or scopes themselves; `scope_path` leads from a row to its scope."""

    # "scope" for a row stored in one; "" for a scope itself (scopes.models.Scope): its own id is among
    # the principal's scopes or not, so the scopes are restricted by the same code as what they hold.
    scope_path: ClassVar[str] = "scope"

    def scope_condition(self, scope_ids) -> Q:
        """The filter keeping rows whose scope is among `scope_ids` (a subquery or a list)."""
        column = f"{self.scope_path}_id" if self.scope_path else "id"
        return Q(**{f"{column}__in": scope_ids})

    def visible_to(self, principal: Asker, action: str = "view") -> ScopedQuerySet:
        """Rows in the scopes `principal` may `action` (view, write, review, manage),
        narrowed by an agent token's scopes and access: one id__in subquery."""
        return self.filter(self.scope_condition(principal.scope_ids(action)))

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
