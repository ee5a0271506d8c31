"""Projects that end (DESIGN §10): an owner archives a project scope and may
restore it. An archived scope is read-only — writing, proposing and reviewing
are withheld where every permission is decided (`scope_ids_for`, through
`ARCHIVE_WITHHOLDS`), forgetting is not — and a read climbs past it unless it
is the scope named (`LADDER_READ_SQL`, read by `read_scope_ids`). Here: who may
archive, the two services, the refusal's code, and the default reads."""

from __future__ import annotations

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from core.errors import NotAllowed

from .errors import NotAProject, ScopeArchived
from .members import is_owner
from .models import Scope, ScopeKind
from .principals import ARCHIVE_WITHHOLDS, Principal, scope_ids_for


def archive_check(*, principal: Principal, scope: Scope) -> None:
    """Who may archive or restore `scope`: a signed-in owner (never an agent
    token: managing a scope is a person's act), and only of a project."""
    if principal.is_agent:
        raise NotAllowed(_("Archiving and restoring are done by a signed-in person, not an agent token."))
    if scope.kind != ScopeKind.PROJECT:
        raise NotAProject(_("Only a project scope can be archived; this one is %(kind)s.") % {"kind": scope.kind_name},
                          fields={"scope": [_("not a project")]})
    if not is_owner(scope, principal.user.pk):
        raise NotAllowed(_("Only an owner of the project archives or restores it."))


@transaction.atomic
def scope_archive(*, principal: Principal, scope: Scope) -> Scope:
    """Archives the project (already checked visible): from now on read-only and
    left out of default reads. Archiving an archived project changes nothing."""
    archive_check(principal=principal, scope=scope)
    locked = Scope.objects.select_for_update().get(pk=scope.pk)
    if locked.archived_at is None:
        locked.archived_at = timezone.now()
        locked.save(update_fields=["archived_at"])
    return locked


@transaction.atomic
def scope_restore(*, principal: Principal, scope: Scope) -> Scope:
    """Makes the project active again, as it was: nothing was changed while it slept."""
    archive_check(principal=principal, scope=scope)
    locked = Scope.objects.select_for_update().get(pk=scope.pk)
    if locked.archived_at is not None:
        locked.archived_at = None
        locked.save(update_fields=["archived_at"])
    return locked


def archived_refusal(rows: QuerySet, *, principal: Principal | None, action: str) -> None:
    """Raises `scope_archived` when `action` was refused because the row's scope
    is archived and the principal would hold the grant otherwise (someone who
    could never write there hears `permission_denied`, as before). `rows`: the
    one row as `first_allowed` was given it, a Scope or a scoped row."""
    if action not in ARCHIVE_WITHHOLDS or principal is None:
        return
    held_archived = scope_ids_for(principal, action, archive_holds=False).filter(archived_at__isnull=False)
    # The row's own way to its scope: a scope's is its id, a Rule's the global scope's.
    if rows.filter(rows.scope_condition(held_archived)).exists():
        raise ScopeArchived(_("This project is archived, so it is read-only: an owner can restore it. "
                              "Forgetting still works."))


def scopes_read_by_default(principal: Principal) -> QuerySet[Scope]:
    """The scopes a read that names no scope goes through: every scope the
    principal may view but the archived ones (named, they still answer)."""
    return Scope.objects.visible_to(principal, "view").filter(archived_at__isnull=True)


def scope_archive_offer(*, principal: Principal, scope: Scope) -> str:
    """What the scope page says and offers (`scope` already checked visible):
    "restore" (archived, to an owner), "archived" (archived, to anyone else),
    "archive" (an active project, to an owner), or "" (nothing to say)."""
    if scope.kind != ScopeKind.PROJECT:
        return ""
    try:  # who may is archive_check's to say
        archive_check(principal=principal, scope=scope)
        owner = True
    except NotAllowed:
        owner = False
    if scope.archived_at is not None:
        return "restore" if owner else "archived"
    return "archive" if owner else ""
