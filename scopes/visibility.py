"""What a principal sees of one row that lives in a scope: the row, or the same 404
for "does not exist" and "may not see it", and a 403 (or the archive's refusal)
for an action they may not take. The restriction primitive under it, which
every model of a scope uses, is scopes/restriction.py."""

from __future__ import annotations

from core.errors import NotAllowed

from .archive import archived_refusal
from .principals import Principal, scope_ids_listed
from .restriction import ScopedQuerySet


def row_get(rows: ScopedQuerySet, *, principal: Principal, pk: int, action: str = "view", listed: bool = True):
    """The row `pk` if `principal` may view it (else 404: "does not exist" and
    "may not see it" are the same answer) and may `action` it (else 403). The
    principal's scopes are listed first (one read of the permission tables), and
    the row is read by them as constants: a cluster sends that read to the
    shards of those scopes alone, where a permission subquery would ask them all.
    `listed=False` for a row of a replicated table (a scope: scopes.selectors.scope_get), read
    on any node as the permission tables are: their subqueries stay inside the row's one query,
    one round trip instead of two."""
    if not listed:
        rows = rows.visible_to(principal, "view").filter(pk=pk)
        if action != "view":
            rows = rows.allowed_in(principal.scope_ids(action))
    elif action == "view":
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
        rows = super().get_queryset(request)
        if request.user.is_superuser:
            return rows
        return rows.visible_to(Principal(request.user), self.scope_action)


class ReadOnlyAdmin:
    """ModelAdmin mixin for rows the admin only shows: what they hold is changed by its own service
    (a membership on its scope's page, a share by its owner, a decision or an audit event never)."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
